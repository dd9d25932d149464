// A parsed search (text.ts) as each dialect's full-text query. Every word must match (AND); the last one as a
// prefix while it is still being typed. Words are letters and digits only, so neither syntax can be injected;
// the query text is still passed as a bound parameter.
import type { SearchQuery } from './text.js';

/**
 * SQLite FTS5: `"epic" "tre"*` (quoted words, implicit AND); with a column, also at least one of them in it:
 * `"epic" "tre"* AND name_text : ("epic" OR "tre"*)`.
 */
export function ftsMatch(query: SearchQuery, column?: string): string {
  const words = query.terms.map((term, index) => {
    const prefix = query.prefixLast && index === query.terms.length - 1;
    return prefix ? `"${term}"*` : `"${term}"`;
  });
  if (column === undefined) return words.join(' ');
  return `${words.join(' ')} AND ${column} : (${words.join(' OR ')})`;
}

/**
 * PostgreSQL tsquery text for `to_tsquery('simple', …)`: `epic & tre:*`; with a weight, also at least one of
 * them in the fields of that weight: `epic & tre:* & (epic:A | tre:*A)`.
 */
export function tsQueryText(query: SearchQuery, weight?: string): string {
  const term = (index: number, suffix: string) => {
    const prefix = query.prefixLast && index === query.terms.length - 1;
    return `${query.terms[index]}${prefix ? `:*${suffix}` : suffix ? `:${suffix}` : ''}`;
  };
  const all = query.terms.map((_, index) => term(index, '')).join(' & ');
  if (weight === undefined) return all;
  return `${all} & (${query.terms.map((_, index) => term(index, weight)).join(' | ')})`;
}
