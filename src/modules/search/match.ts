// A parsed search (text.ts) as each dialect's full-text query. Every word must match (AND); the last one as a
// prefix while it is still being typed; words typed joined must also be adjacent (a phrase). Words are letters
// and digits only, so neither syntax can be injected; the query text is still passed as a bound parameter.
import type { SearchQuery } from './text.js';

const isPrefix = (query: SearchQuery, index: number) => query.prefixLast && index === query.terms.length - 1;

/** FTS5 quoted words, the last typed as a prefix: `"epic" "tre"*`. */
const ftsTerms = (query: SearchQuery): string[] =>
  query.terms.map((term, index) => (isPrefix(query, index) ? `"${term}"*` : `"${term}"`));

/**
 * SQLite FTS5 text of the whole query (implicit AND): the words, then each phrase typed joined as one quoted
 * string, whose words FTS5 matches adjacent and in order: `"user" "81" "8"* "user 81 8"*`.
 */
export function ftsQuery(query: SearchQuery): string {
  const phrases = query.phrases.map((phrase) => `"${phrase.words.join(' ')}"${phrase.prefix ? '*' : ''}`);
  return [...ftsTerms(query), ...phrases].join(' ');
}

/** Every search document gives each of its text columns its own weight (directory-match.ts, 0024). */
const COLUMN_WEIGHTS = 'ABCD';

/**
 * PostgreSQL tsquery text of the whole query, optionally within some weights: the words ANDed, then each phrase
 * with `<->` (followed by) within one weight: `user:AB & 81:AB & 8:*AB & (user:A <-> 81:A <-> 8:*A | …B…)`.
 * One weight is one column, and the document concatenates the columns' vectors end to end, so a phrase without a
 * weight could run from the end of one field into the next; FTS5 matches a phrase within one column.
 */
export function tsQuery(query: SearchQuery, weights = ''): string {
  const operand = (word: string, prefix: boolean, weight: string) =>
    prefix || weight !== '' ? `${word}:${prefix ? '*' : ''}${weight}` : word;
  const terms = query.terms.map((term, index) => operand(term, isPrefix(query, index), weights));
  const phrases = query.phrases.map((phrase) => {
    const last = phrase.words.length - 1;
    const within = (weight: string) =>
      `(${phrase.words.map((word, index) => operand(word, phrase.prefix && index === last, weight)).join(' <-> ')})`;
    return `(${[...(weights === '' ? COLUMN_WEIGHTS : weights)].map(within).join(' | ')})`;
  });
  return [...terms, ...phrases].join(' & ');
}

/** Whether the words restricted to a column must be any one of them or every one. */
export type WordsIn = 'any' | 'every';

/**
 * SQLite FTS5 for resources: the whole query; with a column, also any (or every) one of the words in it:
 * `"epic" "tre"* AND name_text : ("epic" OR "tre"*)`. Every word in the column implies the whole query but for
 * its phrases, and FTS5 would otherwise intersect each word's whole document list with the column's matches
 * (at 1M, `magic epic`: 105 ms with the whole query, 30 ms without).
 */
export function ftsMatch(query: SearchQuery, column?: string, words: WordsIn = 'any'): string {
  if (column === undefined) return ftsQuery(query);
  const inColumn = `${column} : (${ftsTerms(query).join(words === 'any' ? ' OR ' : ' ')})`;
  if (words === 'every' && query.phrases.length === 0) return inColumn;
  return `${ftsQuery(query)} AND ${inColumn}`;
}

/** PostgreSQL tsquery text for resources: the whole query. */
export const tsQueryText = (query: SearchQuery): string => tsQuery(query);

/**
 * PostgreSQL tsquery text of the words alone, any (or every) one of them, for the name's own vector (migration
 * 0028): `epic | tre:*`.
 */
export function tsWordsText(query: SearchQuery, words: WordsIn): string {
  const operands = query.terms.map((term, index) => (isPrefix(query, index) ? `${term}:*` : term));
  return operands.join(words === 'any' ? ' | ' : ' & ');
}
