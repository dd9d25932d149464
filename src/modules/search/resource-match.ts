// Which resources a search matches, and how relevant each is, as SQL on either dialect. Matching is the full-text
// index (FTS5 on SQLite, the GIN-indexed tsvector on PostgreSQL); the relevance score is computed from the
// document's folded text columns with the same string functions on both dialects, so both order the same
// inputs the same way (their native rankers, bm25 and ts_rank, do not agree with each other).
import { sql } from 'kysely';
import type { RawBuilder, SqlBool } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import { ftsMatch, tsQueryText, tsWordsText } from './match.js';
import type { WordsIn } from './match.js';
import type { SearchQuery } from './text.js';

/**
 * A full-text search; `inName`: of those, the matches with any of the words in the name (nameTier) or every one of
 * them (topTier).
 */
export interface SearchMatch {
  query: SearchQuery;
  inName?: WordsIn;
  /**
   * This match's documents as its exact count already read them (resource-totals.ts countMatches), a JSON array
   * of SQLite doc ids or PostgreSQL resource ids: the page, the facets and the listed ids read them instead of
   * the full-text index merging the same word lists again (FTS5) or rebuilding the same GIN bitmap and visiting
   * the same rows (PostgreSQL).
   */
  documents?: string;
}

/** Field weights of the text score: each is 3× the next. */
export const FIELD_WEIGHTS = { name: 27, keywords: 9, body: 3, owner: 1 } as const;
/** Popularity: 1 + min(ln(1 + downloads) + 2·ln(1 + likes), POPULARITY_CAP) / POPULARITY_SCALE (1 to 2.875). */
export const POPULARITY_CAP = 30;
export const POPULARITY_SCALE = 16;

const ftsText = (match: SearchMatch) => ftsMatch(match.query, match.inName && 'name_text', match.inName);

/** Searches of at most this many words can skip the matches without a word in the name (nameTier). */
export const NAME_TIER_MAX_WORDS = 3;

/**
 * The match a relevance page needs to score when it is narrower than the search: the matches with at least one
 * of the words in the name. Each of those scores ≥ 27 + (n − 1) (every other word at least 1), every other match
 * ≤ 9n, and 27 + n − 1 > 9n for n ≤ 3: with the text score ordered first, they all come before the rest, so
 * when they fill the page only they are scored.
 */
export function nameTier(match: SearchMatch): SearchMatch | undefined {
  if (match.query.terms.length > NAME_TIER_MAX_WORDS) return undefined;
  return { query: match.query, inName: 'any' };
}

/**
 * The matches with every word in the name: the top text score (27 per word), so relevance orders them by
 * popularity alone, before every other match; when they fill the page, the page is theirs.
 */
export const topTier = (match: SearchMatch): SearchMatch => ({ query: match.query, inName: 'every' });

/** The ids of the matching documents' resources (every document is an APPROVED resource's). */
export function matchingResourceIds(dialect: DialectName, match: SearchMatch): RawBuilder<unknown> {
  if (dialect === 'postgres') {
    if (match.documents !== undefined) {
      return sql`select json_array_elements_text(${match.documents}::json) as resource_id`;
    }
    const whole = sql`document @@ to_tsquery('simple', ${tsQueryText(match.query)})`;
    if (match.inName === undefined) return sql`select resource_id from resource_search where ${whole}`;
    // The name's own vector, under its own GIN index (0028): the document's GIN index holds words without their
    // weights, so `word:A` re-read every match's document (3.5 s at 1M for a word in 20% of documents). Every
    // word in the name implies the whole query but for its phrases.
    const inName = sql`to_tsvector('simple', name_text) @@ to_tsquery('simple', ${tsWordsText(match.query, match.inName)})`;
    const implied = match.inName === 'every' && match.query.phrases.length === 0;
    return sql`select resource_id from resource_search where ${inName}${implied ? sql`` : sql` and ${whole}`}`;
  }
  return sql`select resource_id from resource_search indexed by resource_search_doc_idx where doc_id in (
    ${matchingDocuments(dialect, match)})`;
}

/**
 * One row per matching document, read from the index alone where the dialect allows (for counting); on SQLite
 * its doc_id, from the documents already read when the match carries them.
 */
export function matchingDocuments(dialect: DialectName, match: SearchMatch): RawBuilder<unknown> {
  if (dialect === 'postgres') return matchingResourceIds(dialect, match);
  if (match.documents !== undefined) return sql`select value as doc_id from json_each(${match.documents})`;
  return sql`select rowid as doc_id from resource_search_fts where resource_search_fts match ${ftsText(match)}`;
}

/**
 * The count of a search's matches up to `limit`, with the documents it read (SearchMatch.documents), from the
 * index alone on SQLite; a JSON array of 10,000 ids costs about 0.1 ms to build on SQLite and 1–2 ms on
 * PostgreSQL, which sends it only when the count is below `limit` (exact).
 */
export function countedDocuments(
  dialect: DialectName,
  match: SearchMatch,
  limit: number,
): RawBuilder<{ count: number; documents: string | null }> {
  const matches = sql`(${matchingDocuments(dialect, match)} limit ${limit}) m`;
  if (dialect === 'postgres') {
    return sql`select count(*) as count,
      case when count(*) < ${limit} then json_agg(m.resource_id)::text end as documents from ${matches}`;
  }
  return sql`select count(*) as count, json_group_array(doc_id) as documents from ${matches}`;
}

/**
 * Up to `limit` matching documents' facet keys, as the full-text index yields its matches (every document is an
 * APPROVED resource's, so a search alone needs nothing else): the first ones are as good as any for facets that
 * say when they stopped, and reading only those spares SQLite listing every match first.
 */
export function matchingFacetKeys(
  dialect: DialectName,
  match: SearchMatch,
  limit: number,
): RawBuilder<{ facet_keys: string }> {
  if (dialect === 'postgres') {
    const matched =
      match.documents === undefined
        ? sql`document @@ to_tsquery('simple', ${tsQueryText(match.query)})`
        : sql`resource_id in (${matchingResourceIds(dialect, match)})`;
    return sql`select facet_keys from resource_search where ${matched} limit ${limit}`;
  }
  if (match.documents !== undefined) {
    return sql`select facet_keys from resource_search
      where doc_id in (select value from json_each(${match.documents})) limit ${limit}`;
  }
  return sql`select s.facet_keys from resource_search_fts
    join resource_search s on s.doc_id = resource_search_fts.rowid
    where resource_search_fts match ${ftsText(match)} limit ${limit}`;
}

/**
 * 'ids': PostgreSQL, few matches (see matchCondition). 'scan': many matches on either dialect: walk a sort index
 * and test each row's document text (textMatch), reading nothing of the index.
 */
export type MatchPlan = 'walk' | 'gather' | 'ids' | 'scan';

/**
 * `resources` is one of the matches. SQLite, walking a sort index: each row is looked up in the documents by
 * resource id (a covering index) and its doc_id checked against the match list, read once from FTS5; the unary
 * + keeps SQLite from probing the index once per list entry instead. Otherwise the matches' ids drive.
 */
export function matchCondition(
  dialect: DialectName,
  match: SearchMatch,
  plan?: MatchPlan,
): RawBuilder<SqlBool> {
  if (dialect === 'postgres' && plan === 'ids') {
    // Few matches: their ids first (one InitPlan), then the rows by primary key. Left to itself the planner
    // guesses a rare or absent word's matches from statistics and walks the date index looking for them: 2.4 s
    // at 1M for a word nothing matches, 0.5 ms this way.
    return sql<SqlBool>`resources.id = any(array(${matchingResourceIds(dialect, match)}))`;
  }
  if (plan === 'scan') {
    return sql<SqlBool>`exists (select 1 from resource_search ws where ws.resource_id = resources.id
      and ${textMatch(dialect, match.query, 'ws', match.inName)})`;
  }
  if (dialect === 'sqlite' && plan === 'walk') {
    return sql<SqlBool>`exists (select 1 from resource_search ws where ws.resource_id = resources.id
      and +ws.doc_id in (${matchingDocuments(dialect, match)}))`;
  }
  return sql<SqlBool>`resources.id in (${matchingResourceIds(dialect, match)})`;
}

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
  inName?: WordsIn,
): RawBuilder<SqlBool> {
  const within = (columns: readonly TextColumn[], needle: string, prefix: boolean) =>
    sql<SqlBool>`(${sql.join(
      columns.map((column) => has(dialect, `${alias}.${column}`, needle, prefix)),
      sql` or `,
    )})`;
  const last = query.terms.length - 1;
  const terms = query.terms.map((term, index) => ({ term, prefix: query.prefixLast && index === last }));
  const conditions = [
    ...terms.map(({ term, prefix }) => within(inName === 'every' ? NAME : TEXT_COLUMNS, term, prefix)),
    ...query.phrases.map((phrase) => within(TEXT_COLUMNS, phrase.words.join(' '), phrase.prefix)),
  ];
  if (inName === 'any') {
    const names = terms.map(({ term, prefix }) => within(NAME, term, prefix));
    conditions.push(sql<SqlBool>`(${sql.join(names, sql` or `)})`);
  }
  return sql<SqlBool>`(${sql.join(conditions, sql` and `)})`;
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
