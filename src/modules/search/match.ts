// A parsed search (text.ts) as each dialect's full-text query. Every word must match (AND); the last one as a
// prefix while it is still being typed; words typed joined must also be adjacent (a phrase). Words are letters
// and digits only, so neither syntax can be injected; the query text is still passed as a bound parameter.
import type { SearchQuery } from './text.js';

const isPrefix = (query: SearchQuery, index: number) => query.prefixLast && index === query.terms.length - 1;

/**
 * SQLite: the prefix lengths, in characters, for which the resources' FTS5 indexes keep document lists of their
 * own (migrations 0032 and 0036: `prefix = '2 3 4 5 6'`).
 */
export const RESOURCE_FTS_PREFIXES = { min: 2, max: 6 } as const;

/**
 * SQLite: whether a search's last word, if typed as a prefix, has a length the resources' FTS5 indexes keep
 * lists for: then it is read as one list, as fast as the word taken whole; any other length makes FTS5 merge the
 * lists of every word it completes to before it can intersect or count anything.
 */
export function prefixIndexed(query: SearchQuery): boolean {
  const last = query.terms.at(-1);
  if (!query.prefixLast || last === undefined) return true;
  const length = [...last].length;
  return length >= RESOURCE_FTS_PREFIXES.min && length <= RESOURCE_FTS_PREFIXES.max;
}

/**
 * SQLite: the search with its last word, typed as a prefix longer than the resources' FTS5 indexes keep lists
 * for, cut to the longest they keep (`economy` → `"econom"*`), when FTS5 would intersect that prefix with other
 * words, phrases or facet terms (`withOthers`). FTS5 merges every completion's whole list (with positions)
 * before it can intersect a prefix it keeps no list of, but reads a kept one as one list, skipping as the
 * intersection goes (at 1M, counted: `craft resources economy` 36 → 13 ms, `werewolves ocean ancient` 43 → 6 ms).
 * The cut matches a superset: a whole search's count takes it when it counts no more than the words taken whole
 * (resource-totals.ts countMatches); relevance's name and keywords tiers test each of its matches
 * (resource-match.ts matchingDocuments). A prefix alone is left whole: FTS5 reads its completions lazily (1 ms
 * at 1M), and a superset costs per match.
 */
export function cutPrefixQuery(query: SearchQuery, withOthers: boolean): SearchQuery | undefined {
  const last = query.terms.at(-1);
  if (!query.prefixLast || last === undefined) return undefined;
  if (!withOthers && query.terms.length === 1 && query.phrases.length === 0) return undefined;
  const characters = [...last];
  if (characters.length <= RESOURCE_FTS_PREFIXES.max) return undefined;
  const cut = characters.slice(0, RESOURCE_FTS_PREFIXES.max).join('');
  return { ...query, terms: [...query.terms.slice(0, -1), cut] };
}

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

/** A lexeme as a tsquery operand, taken literally (`'#tag/x'`, no parsing): quotes and backslashes escaped. */
export const tsLexeme = (lexeme: string): string => `'${lexeme.replace(/['\\]/g, (c) => `\\${c}`)}'`;

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

/**
 * Which of a search's words a column must hold: any one of them, at least two (relevance's middle tier for three
 * words, search/resource-match.ts nameTiers), or every one.
 */
export type WordsIn = 'any' | 'two' | 'every';

/** The words' operands joined as `words` says; at least two of fewer than three words is every one. */
function wordsIn(operands: string[], words: WordsIn, and: string, or: string): string {
  if (words === 'any') return operands.join(or);
  if (words === 'every' || operands.length < 3) return operands.join(and);
  const pairs = operands.flatMap((first, i) =>
    operands.slice(i + 1).map((second) => `(${first}${and}${second})`),
  );
  return pairs.join(or);
}

/** SQLite FTS5: the words in one column, as `words` says: `name_text : ("epic" OR "tre"*)`. */
export const ftsWordsIn = (query: SearchQuery, column: string, words: WordsIn): string =>
  `${column} : (${wordsIn(ftsTerms(query), words, ' ', ' OR ')})`;

/**
 * SQLite FTS5 for resources: the whole query; with a column, also any (or every) one of the words in it:
 * `"epic" "tre"* AND name_text : ("epic" OR "tre"*)`. Every word in the column implies the whole query but for
 * its phrases, and FTS5 would otherwise intersect each word's whole document list with the column's matches
 * (at 1M, `magic epic`: 105 ms with the whole query, 30 ms without).
 */
export function ftsMatch(query: SearchQuery, column?: string, words: WordsIn = 'any'): string {
  if (column === undefined) return ftsQuery(query);
  const inColumn = ftsWordsIn(query, column, words);
  if (words === 'every' && query.phrases.length === 0) return inColumn;
  return `${ftsQuery(query)} AND ${inColumn}`;
}

/**
 * SQLite FTS5, for an index of the name and keywords columns (migration 0036): every word but one in the name,
 * that one in the keywords (not in the name). For one word, `keywords_text : ("epic") NOT name_text :
 * ("epic")`; for more, every word in either column, all but one of them in the name, not every one:
 * `({name_text keywords_text} : ("epic" "tre"*) AND name_text : ("epic" OR "tre"*)) NOT name_text : ("epic"
 * "tre"*)`. For at most three words (all but one of three is two of them). Not `exclusive`: without the `NOT`
 * (a superset, which then includes every word in the name: the caller tests each match's name).
 */
export function ftsAllButOneInName(query: SearchQuery, exclusive = true): string {
  const terms = ftsTerms(query);
  const inName = exclusive ? ` NOT name_text : (${terms.join(' ')})` : '';
  if (terms.length === 1) return `keywords_text : (${terms[0]})${inName}`;
  const fewer = ftsWordsIn(query, 'name_text', terms.length === 2 ? 'any' : 'two');
  return `({name_text keywords_text} : (${terms.join(' ')}) AND ${fewer})${inName}`;
}

/**
 * PostgreSQL: the lengths of the word starts each resource document holds as terms of their own (migration 0033),
 * of words of ASCII letters and digits.
 */
export const PREFIX_TERM_LENGTHS = { min: 3, max: 6 } as const;
const PREFIX_TERM_WORD = /^[a-z0-9]+$/;

/**
 * PostgreSQL: the last word typed as a prefix as the resource documents' term for it, as tsquery text
 * (`'~epic'`), when they hold one: GIN then reads one posting list instead of merging those of every word the
 * prefix completes to. Cast, never parsed: the text search parser would drop the `~`.
 */
export function tsPrefixTerm(query: SearchQuery): string | undefined {
  const last = query.terms[query.terms.length - 1];
  if (!query.prefixLast || last === undefined || !PREFIX_TERM_WORD.test(last)) return undefined;
  if (last.length < PREFIX_TERM_LENGTHS.min || last.length > PREFIX_TERM_LENGTHS.max) return undefined;
  return `'~${last}'`;
}

/**
 * PostgreSQL tsquery text for resources: the whole query, as two parts ANDed: the words for to_tsquery and the
 * last word's prefix term (tsPrefixTerm) when there is one, which then is not among the words ('' if no other).
 */
export function tsQueryParts(query: SearchQuery): { words: string; prefixTerm?: string } {
  const prefixTerm = tsPrefixTerm(query);
  if (prefixTerm === undefined) return { words: tsQuery(query) };
  return { words: tsQuery({ ...query, terms: query.terms.slice(0, -1), prefixLast: false }), prefixTerm };
}

/**
 * PostgreSQL tsquery text of the words alone, as `words` says, for the name's own vector (migration 0028):
 * `epic | tre:*`. `completions`: the name words the last word typed as a prefix completes to (name-words.ts
 * withNameCompletions), written out in its place (`epic | (tree | trees)`) when there are any.
 */
export function tsWordsText(query: SearchQuery, words: WordsIn, completions?: string[]): string {
  const operands = query.terms.map((term, index) => {
    if (!isPrefix(query, index)) return term;
    return completions !== undefined && completions.length > 0 ? `(${completions.join(' | ')})` : `${term}:*`;
  });
  return wordsIn(operands, words, ' & ', ' | ');
}
