// A parsed search (text.ts) as each dialect's full-text query. Every word must match (AND); the last one as a
// prefix while it is still being typed. Words are letters and digits only, so neither syntax can be injected;
// the query text is still passed as a bound parameter.
import type { SearchQuery } from './text.js';

/** SQLite FTS5: `"epic" "tre"*` (quoted words, implicit AND). */
export function ftsMatch(query: SearchQuery): string {
  return query.terms
    .map((term, index) => {
      const prefix = query.prefixLast && index === query.terms.length - 1;
      return prefix ? `"${term}"*` : `"${term}"`;
    })
    .join(' ');
}

/** PostgreSQL tsquery text for `to_tsquery('simple', …)`: `epic & tre:*`. */
export function tsQueryText(query: SearchQuery): string {
  return query.terms
    .map((term, index) => (query.prefixLast && index === query.terms.length - 1 ? `${term}:*` : term))
    .join(' & ');
}
