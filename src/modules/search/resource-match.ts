// Which resources a search matches, and how relevant each is, as SQL on either dialect. Matching is the full-text
// index (FTS5 on SQLite, the GIN-indexed tsvector on PostgreSQL); the relevance score is computed from the
// document's folded text columns with the same string functions on both dialects, so both order the same
// inputs the same way (their native rankers, bm25 and ts_rank, do not agree with each other).
import { sql } from 'kysely';
import type { RawBuilder, SqlBool } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import {
  cutPrefixQuery,
  ftsAllButOneInName,
  ftsMatch,
  ftsWordsIn,
  tsQueryParts,
  tsWordsText,
} from './match.js';
import type { WordsIn } from './match.js';
import { textMatch, wordsInName } from './document-text.js';
import type { SearchQuery } from './text.js';

/**
 * Where a relevance tier wants a search's words: any of them in the name, at least two of them (nameTiers),
 * every one (topTier), or every one but one, that one in the keywords (allButOneTier).
 */
export type NameTier = WordsIn | 'allButOne';

/** A full-text search; `inName`: of its matches, those of a relevance tier (NameTier). */
export interface SearchMatch {
  query: SearchQuery;
  inName?: NameTier;
  /**
   * This match's documents as its exact count already read them (resource-totals.ts countMatches), a JSON array
   * of SQLite doc ids or PostgreSQL resource ids: the page, the facets and the listed ids read them instead of
   * the full-text index merging the same word lists again (FTS5) or rebuilding the same GIN bitmap and visiting
   * the same rows (PostgreSQL).
   */
  documents?: string;
  /**
   * SQLite, relevance's name tiers (nameTiers): the whole search's documents, when its exact count listed them
   * (at most SEARCH_LIMITS.countCap). A tier is those of them whose name holds any word, or two of three, each
   * name read from the names' index (migration 0044, ~2 µs a document): a cost bounded by the count's, whatever
   * the words. Instead of, for any word, FTS5 filtering the whole search's matches by column, which decodes the
   * positions of every document of each word (at 1M, `werewolves ocean ancient`, 2,500 matches: 91 → 8 ms); for
   * two words, the names with two of them (the fields' index) each tested for the whole query on its row, whose
   * long description costs ~20 µs to read (`furniture epic breeding`: 3,015 names, 46–137 ms; 8,486 listed
   * names 18 ms). The names with two of them among the listed documents, from the fields' index, measured 11–38
   * ms: cheaper for rare words, dearer for a word in many names (`epic`, in 18% of them).
   */
  searched?: string;
  /**
   * PostgreSQL: the name words the last word, typed as a prefix, completes to (search/name-words.ts
   * withNameCompletions), when there are few. The name's GIN index collects every name with a word of a prefix
   * before it intersects anything (`epic:*`, a word in 18% of names at 1M: 49 ms alone, 231 ms for three words'
   * pairs); given the words themselves it skips through their lists (3 and 10 ms).
   */
  completions?: string[];
  /**
   * The filter's type and catalog values as the documents' facet terms (resource-facet-keys.ts facetTerms,
   * migrations 0030 and 0031), intersected with the words in the same index scan: a tsquery on PostgreSQL, an
   * FTS5 expression on SQLite. Set where resources/catalog-lists.ts filterFacetTerms allows it: by
   * resourceFilterCondition (which then leaves those filters to the index) and by the count, which keeps it with
   * the documents it read; on PostgreSQL only for the whole document.
   */
  facets?: string;
}

/** SQLite: FTS5 text of the words, the match's facet terms ANDed (no search word can reach them, in any column). */
const withFacets = (match: SearchMatch, words: string) => {
  if (match.facets === undefined) return words;
  return words === '' ? match.facets : `(${words}) AND (${match.facets})`;
};

/**
 * A match of facet terms alone, no words (resources/catalog-lists.ts catalogFacetTerms): the documents, so the
 * APPROVED resources, with the filter's type and catalog values.
 */
export const facetTermsMatch = (facets: string): SearchMatch => ({
  query: { terms: [], prefixLast: false, phrases: [] },
  facets,
});

/**
 * PostgreSQL: the match as a tsquery of the whole document: its words, the last one's prefix term
 * (match.ts tsQueryParts) and its facet terms ANDed.
 */
export function tsMatch(match: Pick<SearchMatch, 'query' | 'facets'>): RawBuilder<unknown> {
  const { words, prefixTerm } = tsQueryParts(match.query);
  const parts: Array<RawBuilder<unknown>> = [];
  if (words !== '' || (prefixTerm === undefined && match.facets === undefined)) {
    parts.push(sql`to_tsquery('simple', ${words})`);
  }
  if (prefixTerm !== undefined) parts.push(sql`${prefixTerm}::tsquery`);
  if (match.facets !== undefined) parts.push(sql`${match.facets}::tsquery`);
  return parts.length === 1 ? parts[0]! : sql`(${sql.join(parts, sql` && `)})`;
}

/**
 * SQLite: the FTS5 index a match reads, and the match as its FTS5 text. The tiers that ask only where the words
 * are in the name and keywords read the index of those columns (migration 0036, `detail = column`): the main
 * index answers a column filter by decoding the positions of every document of each word (at 1M, every word of
 * `trees build tiny` in the name: 76 → 10 ms). A phrase needs positions, and words in the name together with
 * the whole query need the other columns: those read the main index.
 */
function ftsOf(match: SearchMatch, superset: boolean): { index: string; text: string } {
  const fields = { index: 'resource_fields_fts' };
  switch (match.inName) {
    case 'allButOne':
      return { ...fields, text: withFacets(match, ftsAllButOneInName(match.query, !superset)) };
    case 'two':
      // Only the names: each of them is tested for the tier and the whole query (matchingDocuments).
      return { ...fields, text: withFacets(match, ftsWordsIn(match.query, 'name_text', 'two')) };
    case 'every':
      if (match.query.phrases.length === 0) {
        return { ...fields, text: withFacets(match, ftsWordsIn(match.query, 'name_text', 'every')) };
      }
  }
  const text = ftsMatch(match.query, match.inName && 'name_text', match.inName);
  return { index: 'resource_search_fts', text: withFacets(match, text) };
}

/**
 * SQLite: the doc ids (rowid) of the documents a match's FTS5 index yields; with `superset`, of a superset the
 * caller tests (the class after the top tier without its `not every word in the name`).
 */
function ftsMatches(match: SearchMatch, superset = false): RawBuilder<unknown> {
  const { index, text } = ftsOf(match, superset);
  const fts = sql.table(index);
  return sql`select rowid as doc_id from ${fts} where ${fts} match ${text}`;
}

/** The matches of `match` with its words in the name as `inName` says: another match (no documents). */
const tierOf = (match: SearchMatch, inName: NameTier): SearchMatch => ({
  query: match.query,
  inName,
  completions: match.completions,
});

/** Searches of at most this many words can skip the matches without a word in the name (nameTiers). */
export const NAME_TIER_MAX_WORDS = 3;

/**
 * The matches a relevance page needs to score when they are narrower than the search, narrowest first: each one
 * comes before every other match, so the first that fills the page is the only one scored. With k of n words
 * in the name a match scores ≥ 27k + (n − k) (every other word at least 1); with fewer, ≤ 27(k − 1) + 9(n − k + 1);
 * the first is larger whenever n − k ≤ 2. So for n ≤ 3 the matches with any word in the name come first, and for
 * three words also those with at least two of them: a word in 18% of names at 1M left 10,000+ matches with one
 * of three words in the name, 3,035 with two (SQLite scored them all: `ocean tools epic` 1.3 s).
 */
export function nameTiers(match: SearchMatch): SearchMatch[] {
  const words = match.query.terms.length;
  if (words > NAME_TIER_MAX_WORDS) return [];
  const tier = (inName: 'any' | 'two') => ({ ...tierOf(match, inName), searched: match.documents });
  return words === 3 ? [tier('two'), tier('any')] : [tier('any')];
}

/**
 * The matches with every word in the name: the top text score (27 per word), so relevance orders them by
 * popularity alone, before every other match; when they fill the page, the page is theirs.
 */
export const topTier = (match: SearchMatch): SearchMatch => tierOf(match, 'every');

/**
 * The matches that score next after the top tier, read from the indexes (SQLite's fields index, 0036;
 * PostgreSQL's name and head words, 0043): all the n words but one in the name and that one in the keywords,
 * 27(n − 1) + 9 each. Every other match scores less: with fewer words in the name at most 27(n − 2) + 18, with
 * n − 1 there and the last word elsewhere 27(n − 1) + 3. They too come in popularity order alone, after the top
 * tier's. Not for phrases (neither index has positions) nor for more words than NAME_TIER_MAX_WORDS.
 */
export function allButOneTier(match: SearchMatch): SearchMatch | undefined {
  const { terms, phrases } = match.query;
  if (phrases.length > 0 || terms.length === 0 || terms.length > NAME_TIER_MAX_WORDS) return undefined;
  return tierOf(match, 'allButOne');
}

/**
 * PostgreSQL: `column` (a primary key) is one of the ids `ids` selects, read first (one InitPlan) and then looked
 * up one by one. Joined instead, the planner may walk a primary key in order (a merge join), testing every
 * row's document on the way.
 */
const idIn = (column: string, ids: RawBuilder<unknown>) =>
  sql<SqlBool>`${sql.ref(column)} = any(array(${ids}))`;

/** The ids of the matching documents' resources (every document is an APPROVED resource's). */
export function matchingResourceIds(dialect: DialectName, match: SearchMatch): RawBuilder<unknown> {
  if (dialect === 'postgres') {
    if (match.documents !== undefined) {
      return sql`select json_array_elements_text(${match.documents}::json) as resource_id`;
    }
    // The vectors' own narrow table (migration 0034): each match's row is visited for its visibility.
    const whole = sql`v.document @@ ${tsMatch(match)}`;
    if (match.inName === undefined)
      return sql`select v.resource_id from resource_search_vectors v where ${whole}`;
    if (match.inName === 'allButOne') return allButOneIds(match);
    // The name's own vector, under its own GIN index (0028, 0034): the document's GIN index holds words without
    // their weights, so `word:A` re-read every match's document (3.5 s at 1M for a word in 20% of documents).
    // Every word in the name implies the whole query but for its phrases.
    const names = tsWordsText(match.query, match.inName, match.completions);
    const inName = sql`v.name_words @@ to_tsquery('simple', ${names})`;
    // Two of three words in the name: the name's index finds the few names, and each one's text is tested for
    // the tier (textMatch: the whole query too) rather than the document's index collecting every match of the
    // whole query's common words (`ocean tools epic` at 1M: 109 → 10 ms).
    if (match.inName === 'two') {
      const named = sql`select v.resource_id from resource_search_vectors v where ${inName}`;
      return sql`select resource_id from resource_search s where ${idIn('s.resource_id', named)}
        and ${textMatch(dialect, match.query, 's', 'two')}`;
    }
    const implied = match.inName === 'every' && match.query.phrases.length === 0;
    return sql`select v.resource_id from resource_search_vectors v
      where ${inName}${implied ? sql`` : sql` and ${whole}`}`;
  }
  return sql`select resource_id from resource_search indexed by resource_search_doc_idx where doc_id in (
    ${matchingDocuments(dialect, match)})`;
}

/**
 * PostgreSQL, allButOneTier: every word in the name and keywords (head_words, migration 0043; the last one's
 * prefix term as the document's), all but one of them in the name (none of one word, any of two, two of three)
 * and not every one, as match.ts ftsAllButOneInName asks SQLite's fields index. Both vectors have GIN indexes.
 */
function allButOneIds(match: SearchMatch): RawBuilder<unknown> {
  const { query, completions } = match;
  const words = query.terms.length;
  const inName = (tier: WordsIn) =>
    sql`v.name_words @@ to_tsquery('simple', ${tsWordsText(query, tier, completions)})`;
  const fewer = words === 1 ? sql`` : sql` and ${inName(words === 2 ? 'any' : 'two')}`;
  return sql`select v.resource_id from resource_search_vectors v
    where v.head_words @@ ${tsMatch({ query })}${fewer} and not ${inName('every')}`;
}

/** SQLite's indexes of the documents' names (migration 0044), by the key a test holds. */
const NAMES_INDEX = {
  doc_id: 'resource_search_doc_name_idx',
  resource_id: 'resource_search_resource_name_idx',
} as const;

/**
 * SQLite: the search documents' rows as `alias`; `namesBy`, only their names, read from their index by that key
 * (migration 0044), which SQLite without statistics would not choose over the rows.
 */
const searchRows = (alias: 's' | 'ws', namesBy?: keyof typeof NAMES_INDEX) => {
  const rows = sql`resource_search ${sql.raw(alias)}`;
  return namesBy === undefined ? rows : sql`${rows} indexed by ${sql.raw(NAMES_INDEX[namesBy])}`;
};

/** Whether a tier's test of a document (textMatch) reads its name alone: the top tier's, but for phrases. */
const testsNameAlone = (match: SearchMatch) => match.inName === 'every' && match.query.phrases.length === 0;

/**
 * One row per matching document, read from the index alone where the dialect allows (for counting); on SQLite
 * its doc_id, from the documents already read when the match carries them.
 */
export function matchingDocuments(dialect: DialectName, match: SearchMatch): RawBuilder<unknown> {
  if (dialect === 'postgres') return matchingResourceIds(dialect, match);
  if (match.documents !== undefined) return sql`select value as doc_id from json_each(${match.documents})`;
  // Each document's row (alias s) tested; a test that reads the name alone reads it from the names' index (0044).
  const tested = (rows: RawBuilder<unknown>, test: RawBuilder<SqlBool>, nameAlone = false) =>
    sql`select s.doc_id from (${rows}) f join ${searchRows('s', nameAlone ? 'doc_id' : undefined)}
      on s.doc_id = f.doc_id where ${test}`;
  if ((match.inName === 'any' || match.inName === 'two') && match.searched !== undefined) {
    return tested(
      sql`select value as doc_id from json_each(${match.searched})`,
      wordsInName(dialect, match.query, 's', match.inName),
      true,
    );
  }
  // The name and keywords' tiers with a last word typed as a prefix FTS5 keeps no list of, intersected with
  // anything: the matches of the prefix cut to one it keeps (match.ts cutPrefixQuery), each tested for the tier
  // (from the name and keywords but for the middle tier's, which tests its names anyway). Not the whole search's
  // or the tier of any word in the name: most of their matches hold the word in the long description only, whose
  // text costs ~20 µs a document to read (`backpacks automatic` at 1M, 9,286 matches: 194 ms to test them, 19 ms
  // for the whole answer without the cut).
  const tier = match.inName !== undefined && match.inName !== 'any';
  const cut = tier ? cutPrefixQuery(match.query, match.facets !== undefined) : undefined;
  if (cut !== undefined) {
    return tested(
      ftsMatches({ ...match, query: cut }, true),
      textMatch(dialect, match.query, 's', match.inName),
      testsNameAlone(match),
    );
  }
  // Not listed (the whole search's count was capped): the names with two of the words (from the fields' index:
  // `ocean tools epic` at 1M, 3,035 of them), each row tested for the tier and the whole query (textMatch: 971);
  // FTS5 testing the name of every match of the whole query read the positions of common words' every document
  // (568 ms).
  if (match.inName === 'two') return tested(ftsMatches(match), textMatch(dialect, match.query, 's', 'two'));
  return ftsMatches(match);
}

/**
 * The count of a search's matches up to `limit`, with the documents it read (SearchMatch.documents), from the
 * index alone on SQLite; a JSON array of 10,000 ids costs about 0.1 ms to build on SQLite and 1–2 ms on
 * PostgreSQL, which sends it only when the count is below `limit` (exact). With `listed` false, no documents (a
 * count beside the page, whose documents nothing would read).
 */
export function countedDocuments(
  dialect: DialectName,
  match: SearchMatch,
  limit: number,
  listed = true,
): RawBuilder<{ count: number; documents: string | null }> {
  const matches = sql`(${matchingDocuments(dialect, match)} limit ${limit}) m`;
  if (!listed) return sql`select count(*) as count, null as documents from ${matches}`;
  if (dialect === 'postgres') {
    return sql`select count(*) as count,
      case when count(*) < ${limit} then json_agg(m.resource_id)::text end as documents from ${matches}`;
  }
  return sql`select count(*) as count, json_group_array(doc_id) as documents from ${matches}`;
}

/**
 * 'ids': PostgreSQL, few matches (see matchCondition). 'scan': many matches on either dialect: walk a sort index
 * and test each row's document text (textMatch), reading nothing of the index. 'hashed': one catalog list without
 * a search, a walk of a sort index testing rows against its link ids read once (resources/catalog-lists.ts
 * hashedLinkTest); also a search's listed documents' resource ids (matchCondition).
 */
export type MatchPlan = 'walk' | 'gather' | 'ids' | 'scan' | 'hashed';

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
    return idIn('resources.id', matchingResourceIds(dialect, match));
  }
  if (plan === 'scan') {
    // SQLite reads a test of the name alone from the names' index by resource id, not each walked row.
    const nameAlone = dialect === 'sqlite' && testsNameAlone(match);
    const rows = searchRows('ws', nameAlone ? 'resource_id' : undefined);
    return sql<SqlBool>`exists (select 1 from ${rows} where ws.resource_id = resources.id
      and ${textMatch(dialect, match.query, 'ws', match.inName)})`;
  }
  if (dialect === 'sqlite' && plan === 'walk') {
    return sql<SqlBool>`exists (select 1 from resource_search ws where ws.resource_id = resources.id
      and +ws.doc_id in (${matchingDocuments(dialect, match)}))`;
  }
  if (plan === 'hashed') return inHashedMatches(dialect, 'resources.id', match);
  return sql<SqlBool>`resources.id in (${matchingResourceIds(dialect, match)})`;
}

/**
 * `column` (a resource id of a walked sort index: `resources.id`, or a bounded walk's `w.id`) is one of the
 * matches' resource ids, read once into an in-memory index (SQLite) or a hash (PostgreSQL's hashed subplan:
 * `is true` keeps the IN a test, not a join the ids drive); each walked row is tested from the index alone (the
 * + keeps SQLite's ids from driving): plan-costs.ts listedMatchesPlan.
 */
export function inHashedMatches(
  dialect: DialectName,
  column: 'resources.id' | 'w.id',
  match: SearchMatch,
): RawBuilder<SqlBool> {
  const ids = matchingResourceIds(dialect, match);
  return dialect === 'sqlite'
    ? sql<SqlBool>`+${sql.raw(column)} in (${ids})`
    : sql<SqlBool>`(${sql.raw(column)} in (${ids})) is true`;
}
