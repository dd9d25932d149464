// Conditions and scores on a search document's folded text columns (resource_search, server_search), the same
// string functions on both dialects: whether a document matches a search (the plans that test rows instead of
// reading the full-text index's lists), and the relevance order (resource-match.ts explains why not the engines'
// own rankers).
import { sql } from 'kysely';
import type { RawBuilder, SqlBool } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import type { NameTier, SearchMatch } from './resource-match.js';
import type { SearchQuery } from './text.js';

/** Field weights of the text score: each is 3× the next. */
export const FIELD_WEIGHTS = { name: 27, keywords: 9, body: 3, owner: 1 } as const;
/** Popularity: 1 + min(ln(1 + downloads) + 2·ln(1 + likes), POPULARITY_CAP) / POPULARITY_SCALE (1 to 2.875). */
export const POPULARITY_CAP = 30;
export const POPULARITY_SCALE = 16;

/**
 * Whether a folded text column has the term as a word (or, typed last, as the start of a word). The columns hold
 * words separated by single spaces, so a word is a space-delimited substring: exactly what the index matched.
 */
function has(dialect: DialectName, column: string, term: string, prefix: boolean): RawBuilder<SqlBool> {
  const find = sql.raw(dialect === 'postgres' ? 'strpos' : 'instr');
  const ref = sql.ref(column);
  return prefix
    ? sql<SqlBool>`${find}(' ' || ${ref}, ${` ${term}`}) > 0`
    : sql<SqlBool>`${find}(' ' || ${ref} || ' ', ${` ${term} `}) > 0`;
}

/** The text columns of a document, the long description last: it is read only when the short ones did not answer. */
const TEXT_COLUMNS = ['name_text', 'keywords_text', 'owner_text', 'body_text'] as const;
export type TextColumn = (typeof TEXT_COLUMNS)[number];
const NAME: readonly TextColumn[] = ['name_text'];
const NAME_KEYWORDS: readonly TextColumn[] = ['name_text', 'keywords_text'];

/**
 * The search as a condition on one document's text columns (`alias`), true exactly when the full-text index
 * matches it (with `inName`, as SearchMatch says): every word in some column (the last one as a word's start
 * when typed as a prefix), every phrase within one column. The index holds the same folded words (text.ts), so a
 * word is a space-delimited substring. Costs a row read per document instead of the index's match list: the plan
 * for words so common that a page of them is a few rows of a sort index away.
 */
export function textMatch(
  dialect: DialectName,
  query: SearchQuery,
  alias: string,
  inName?: NameTier,
): RawBuilder<SqlBool> {
  const within = (columns: readonly TextColumn[], needle: string, prefix: boolean) =>
    sql<SqlBool>`(${sql.join(
      columns.map((column) => has(dialect, `${alias}.${column}`, needle, prefix)),
      sql` or `,
    )})`;
  const last = query.terms.length - 1;
  const terms = query.terms.map((term, index) => ({ term, prefix: query.prefixLast && index === last }));
  const allButOne = inName === 'allButOne';
  // All but one word in the name: none of one word, any of two, two of three (match.ts ftsAllButOneInName).
  const inNameWords = allButOne ? ([undefined, 'any', 'two'] as const)[last] : inName;
  // At least two of fewer than three words is every one of them (match.ts wordsIn).
  const every = inNameWords === 'every' || (inNameWords === 'two' && terms.length < 3);
  const columns = every ? NAME : allButOne ? NAME_KEYWORDS : TEXT_COLUMNS;
  const conditions = [
    ...terms.map(({ term, prefix }) => within(columns, term, prefix)),
    ...query.phrases.map((phrase) => within(TEXT_COLUMNS, phrase.words.join(' '), phrase.prefix)),
  ];
  if (inNameWords === 'any' || (inNameWords === 'two' && !every)) {
    conditions.push(wordsInName(dialect, query, alias, inNameWords));
  }
  if (allButOne) {
    conditions.push(sql<SqlBool>`not (${sql.join(nameWords(dialect, query, alias), sql` and `)})`);
  }
  return sql<SqlBool>`(${sql.join(conditions, sql` and `)})`;
}

/** Per word of the search, whether the name (`alias`.name_text) holds it (the last one as typed). */
function nameWords(dialect: DialectName, query: SearchQuery, alias: string): Array<RawBuilder<SqlBool>> {
  const last = query.terms.length - 1;
  return query.terms.map((term, index) =>
    has(dialect, `${alias}.name_text`, term, query.prefixLast && index === last),
  );
}

/**
 * Whether the name (`alias`.name_text) holds any of the search's words, or at least two of them (the last one as
 * typed): a whole search's match is then in relevance's tier 'any' or 'two' (resource-match.ts nameTiers).
 */
export function wordsInName(
  dialect: DialectName,
  query: SearchQuery,
  alias: string,
  inName: 'any' | 'two',
): RawBuilder<SqlBool> {
  const names = nameWords(dialect, query, alias);
  if (inName === 'any') return sql<SqlBool>`(${sql.join(names, sql` or `)})`;
  const pairs = names.flatMap((first, i) =>
    names.slice(i + 1).map((second) => sql`(${first} and ${second})`),
  );
  return sql<SqlBool>`(${sql.join(pairs, sql` or `)})`;
}

/**
 * The text score of a document (alias `s`): per query word, the weight of the best field it occurs in (name >
 * tags, categories, short description > description > owner). A word that is not in the name or keywords counts
 * as a description word unless it is in the owner's names and not in the description: the long description is
 * searched only in that rare case.
 */
export function textScore(dialect: DialectName, query: SearchQuery): RawBuilder<number> {
  const last = query.terms.length - 1;
  const parts = query.terms.map((term, index) => {
    const prefix = query.prefixLast && index === last;
    const inField = (column: string) => has(dialect, `s.${column}`, term, prefix);
    return sql`(case
      when ${inField('name_text')} then ${sql.lit(FIELD_WEIGHTS.name)}
      when ${inField('keywords_text')} then ${sql.lit(FIELD_WEIGHTS.keywords)}
      when ${inField('owner_text')} and not ${inField('body_text')} then ${sql.lit(FIELD_WEIGHTS.owner)}
      else ${sql.lit(FIELD_WEIGHTS.body)} end)`;
  });
  return sql<number>`(${sql.join(parts, sql` + `)})`;
}

/** The popularity of a resource row (`resources`), from 1 to 2.875. */
export function popularity(dialect: DialectName): RawBuilder<number> {
  if (dialect === 'postgres') {
    return sql<number>`(1 + least(ln((1 + resources.downloads)::float8) + 2 * ln((1 + resources.like_count)::float8),
      ${sql.lit(POPULARITY_CAP)}) / ${sql.lit(POPULARITY_SCALE)}::float8)`;
  }
  return sql<number>`(1 + min(ln(1 + resources.downloads) + 2 * ln(1 + resources.like_count),
    ${sql.lit(POPULARITY_CAP)}) / ${sql.lit(POPULARITY_SCALE)}.0)`;
}

/**
 * The relevance order of matched documents (`s`) of resources (`resources`), best first: the text score, then
 * popularity (so popularity orders equal text scores and never lifts a lower text score, as Meilisearch's
 * ranking rules put attributes before custom ranking); the caller breaks the last ties by id.
 */
export function relevanceOrder(dialect: DialectName, match: SearchMatch): Array<RawBuilder<number>> {
  return [textScore(dialect, match.query), popularity(dialect)];
}
