// Totals of GET /resources that no whole-table count pays for. Rules (also in the OpenAPI description):
// - no search, no catalog filter: the status or per-type counter (resources.repo.ts);
// - no search, one value of one catalog filter (with or without type): that value's counter
//   (resource_facet_counts, kept by triggers on the search documents);
// - otherwise the matches are counted through the indexes (the full-text index, the link tables), in time
//   proportional to the matches, stopping at SEARCH_LIMITS.countCap: past it `total` is that lower bound and
//   `totalExact` is false.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import type { DB } from '../../core/db/schema.js';
import {
  catalogFacetTerms,
  catalogLists,
  documentsAnswer,
  filterFacetTerms,
  isSearchAlone,
} from '../resources/catalog-lists.js';
import type { CatalogList } from '../resources/catalog-lists.js';
import { resourceFilterCondition } from '../resources/resource-views.repo.js';
import type { ResourceFilter } from '../resources/resource-views.repo.js';
import { cappedTotal } from './capped-total.js';
import type { CappedTotal } from './capped-total.js';
import { withIndexPlans } from './index-plans.js';
import { readFacetCount, SEARCH_LIMITS } from './resource-facets.js';
import { hashedWalkPays } from './plan-costs.js';
import { countedDocuments, facetTermsMatch } from './resource-match.js';
import type { MatchPlan } from './resource-match.js';
import { cutPrefixQuery, PREFIX_TERM_LENGTHS, prefixIndexed, tsPrefixTerm } from './match.js';
import { wholeWords } from './text.js';
import type { SearchQuery } from './text.js';

export interface Total extends CappedTotal {
  /**
   * A search counted exactly from its documents alone: the documents it counted (SearchMatch.documents), and the
   * facet terms it read them with, if any (SearchMatch.facets): then the documents are the whole filter's matches.
   */
  documents?: string;
  facets?: string;
}

/** The search of a filter with the documents its exact count read, if it read them. */
export function withDocuments(filter: ResourceFilter, total: Total): ResourceFilter {
  if (filter.match === undefined || total.documents === undefined) return filter;
  return { ...filter, match: { ...filter.match, documents: total.documents, facets: total.facets } };
}

/**
 * The counter scope of a list's values: a type filter's, except for categories, which belong to one type (with a
 * type filter the category filter was resolved within that type) and are counted among all.
 */
const counterScope = (list: CatalogList, filter: ResourceFilter) =>
  list.facet === 'category' ? '' : (filter.type ?? '');

/**
 * What the counters say of a filter without a search and with one catalog list: of one value, the exact total;
 * of several, the most used value's count, a lower bound (a resource with any of them matches), which settles a
 * total past the cap without counting (two common tags at 1M: 227 ms on PostgreSQL).
 */
async function fromCounters(
  db: Kysely<DB>,
  filter: ResourceFilter,
): Promise<{ count: number; exact: boolean } | undefined> {
  if (filter.match !== undefined) return undefined;
  const lists = catalogLists(filter);
  if (lists.length !== 1) return undefined;
  const [list] = lists as [CatalogList];
  const scope = counterScope(list, filter);
  const counts = await Promise.all(list.ids.map((id) => readFacetCount(db, list.facet, scope, id)));
  return { count: Math.max(0, ...counts), exact: counts.length === 1 };
}

/** A list's APPROVED resources in a counter scope, by the counters: a sum over its values, an upper bound. */
async function counted(db: Kysely<DB>, list: CatalogList, scope: string): Promise<number> {
  const counts = await Promise.all(list.ids.map((id) => readFacetCount(db, list.facet, scope, id)));
  return counts.reduce((a, b) => a + b, 0);
}

/** Each list's link rows of APPROVED resources (of its type, if any). */
const linkRowCounts = (db: Kysely<DB>, lists: CatalogList[]) =>
  Promise.all(lists.map((list) => counted(db, list, list.type ?? '')));

/**
 * One catalog list without a search: plan 'hashed' when the list's link ids are worth reading once to test the
 * rows of a walk of the sort index against (hashedWalkPays). Otherwise, on PostgreSQL, 'gather': the page's ids
 * first (pageOfViews), the planner choosing how; SQLite decides by its count (undefined). Both sizes come from the
 * counters (APPROVED resources): the link rows read are the list's values' (of its type, if any), the matches
 * those of the filter's type.
 */
export async function catalogListsPlan(
  db: Kysely<DB>,
  dialect: DialectName,
  filter: ResourceFilter,
  pageEnd: number,
  walked: () => Promise<number>,
  hashLimit: number,
): Promise<MatchPlan | undefined> {
  const lists = catalogLists(filter);
  // Several lists are left to the planner, in one statement: read ids first they measured no faster (at 1M, a
  // type, a tag and a version: p50 30 → 33 ms; two tags: 8–11 → 9–20 ms).
  if (filter.match !== undefined || lists.length !== 1) return undefined;
  const list = lists[0]!;
  const hashedScope = list.type ?? '';
  const matchScope = counterScope(list, filter);
  const links = await counted(db, list, hashedScope);
  const matches = matchScope === hashedScope ? links : await counted(db, list, matchScope);
  if (await hashedWalkPays(dialect, { links, matches }, pageEnd, walked, hashLimit)) return 'hashed';
  return dialect === 'postgres' ? 'gather' : undefined;
}

/**
 * PostgreSQL, several catalog lists without a search, read as the documents' facet terms: the count comes first
 * and lists its documents (to the cap), which the page then reads (listedCatalogFilter); past the cap the page
 * is the planner's. Left to the planner beside the count, such a page joined every match's links, row and owner
 * before sorting (a type, a tag and a version at 1M, 1,542 matches: 27–54 ms warm, 317 ms cold; the kind's
 * p90 27 → 11 ms, though its smallest list's counters would have said the count might pass the cap).
 */
export const catalogCountsFirst = (dialect: DialectName, filter: ResourceFilter): boolean =>
  catalogLists(filter).length >= 2 && catalogFacetTerms(dialect, filter) !== undefined;

/**
 * Catalog lists without a search whose count listed their documents: the same filter as those documents, a
 * match of their facet terms, which a page reads as a search's listed matches (plan-costs.ts searchPagePlan).
 */
export function listedCatalogFilter(filter: ResourceFilter, total: Total): ResourceFilter | undefined {
  if (filter.match !== undefined || total.documents === undefined || total.facets === undefined)
    return undefined;
  const match = { ...facetTermsMatch(total.facets), documents: total.documents };
  return { status: filter.status, type: filter.type, match };
}

/**
 * PostgreSQL: the last word is typed as a prefix that GIN expands by merging the lists of many words: one without
 * a term of its own (tsPrefixTerm) that is no longer than those terms (one or two characters, or up to six
 * with one outside a–z and 0–9). A longer one completes to few words (`trading:*`: the word and a few rare
 * ones), merged at about one word's cost.
 */
const lastWordMergesManyLists = (query: SearchQuery) => {
  const last = query.terms[query.terms.length - 1];
  if (!query.prefixLast || last === undefined || tsPrefixTerm(query) !== undefined) return false;
  return last.length <= PREFIX_TERM_LENGTHS.max;
};

/**
 * Whether a search with a type or catalog lists reads them as the documents' facet terms in its full-text scan
 * (ResourceFilter.facetTerms; migrations 0030, 0031) rather than joining or probing the link rows. On SQLite always:
 * one FTS5 query intersecting the words and the terms measured faster than any list driving (at 1M, p99 214–341 ms
 * with small lists driving, 135–161 ms without). On PostgreSQL always, but for a search whose last word is a short
 * prefix without a term of its own (lastWordMergesManyLists) with a list so small that testing its resources'
 * documents one by one is cheaper: GIN collects every document with a word of the prefix before it intersects
 * anything (`better:*` at 1M, before its prefix term: 158 ms; `better` with a tag on 1,401 PLUGIN resources: 51 ms
 * joined, 360 ms as terms; a tag on 137,943 MOD resources with a common word: 1.5 s joined, under 0.3 s as terms). A
 * longer prefix joined tested ~3,700 documents at 25–30 µs each, twice (the count and the page: `backpacks` with a
 * tag of DATA_PACK, 103 ms); as terms, 5–6 ms.
 */
export async function withFacetTerms(
  db: Kysely<DB>,
  dialect: DialectName,
  filter: ResourceFilter,
): Promise<ResourceFilter> {
  const lists = catalogLists(filter);
  if (filter.match === undefined || (filter.type === undefined && lists.length === 0)) return filter;
  if (dialect === 'postgres' && lastWordMergesManyLists(filter.match.query) && lists.length > 0) {
    const sizes = await linkRowCounts(db, lists);
    if (Math.min(...sizes) < SEARCH_LIMITS.facetTermsFrom) return filter;
  }
  return { ...filter, facetTerms: true };
}

/**
 * A count read from the documents alone (up to `cap` + 1 of them): exact, it keeps the documents it read and the
 * facet terms it read them with, for the page, the facets and the listed ids.
 */
export function documentsTotal(
  count: number,
  documents: string | null | undefined,
  facets: string | undefined,
  cap: number,
  listed = true,
): Total {
  const counted = cappedTotal(count, cap);
  return counted.exact && listed ? { ...counted, documents: documents ?? '[]', facets } : counted;
}

/**
 * The filter's total (the rules above). `listed` false: a count whose documents nobody reads (one run beside the
 * page): none are collected (PostgreSQL's array of up to 10,000 ids, 1.5–2 ms of a relevance page's whole count).
 */
export async function countMatches(
  db: Kysely<DB>,
  dialect: DialectName,
  filter: ResourceFilter,
  cap = SEARCH_LIMITS.countCap,
  listed = true,
): Promise<Total> {
  const counted = await fromCounters(db, filter);
  if (counted?.exact) return { total: counted.count, exact: true };
  if (counted !== undefined && counted.count > cap) return { total: cap, exact: false };
  const facets = filterFacetTerms(dialect, filter);
  // Such documents are counted as a search alone's, and kept (with their terms) for the page.
  const alone = isSearchAlone(filter) || documentsAnswer(dialect, filter);
  // (Not for words in the name: there FTS5's cost is the column's position lists, the same for whole words.)
  const whole =
    alone && dialect === 'sqlite' && filter.match!.inName === undefined && !prefixIndexed(filter.match!.query)
      ? wholeWords(filter.match!.query)
      : undefined;
  if (whole !== undefined) {
    // FTS5 merges a prefix's words into one list before it returns a match when it keeps no list of that
    // prefix (`m`, `dungeo`…: 50–180 ms at 1M for a common word typed without a space after it, 1 ms taken
    // whole). The word taken whole matches a subset: when that reaches the cap, so does the prefix. (Only from
    // the index alone: with other filters each match is checked against its row, and the subset would cost as
    // much again. Not for an indexed prefix: its list costs what the whole word's does, and a subset short of
    // the cap, the usual case, paid both counts: 2 × 8–14 ms at 1M.)
    const subset = await countMatches(
      db,
      dialect,
      { ...filter, match: { ...filter.match!, query: whole } },
      cap,
    );
    if (!subset.exact) return subset;
    // The prefix cut to one FTS5 keeps (match.ts cutPrefixQuery) matches a superset, read from the index alone:
    // when it counts no more than the subset, both are the matches (`craft resources econom*` at 1M: 7,355, as
    // many as `craft resources economy`; 13 ms where the prefix as typed took 36). Else the prefix as typed.
    const cut = cutPrefixQuery(filter.match!.query, facets !== undefined);
    if (cut !== undefined) {
      const cutMatch = { ...filter.match!, query: cut };
      const superset = await countMatches(db, dialect, { ...filter, match: cutMatch }, cap);
      if (superset.exact && superset.total === subset.total) return subset;
    }
  }
  if (alone) {
    // The documents come along: a page, facets or listed ids read from them spare the index its work again.
    const { rows } = await withIndexPlans(db, dialect, (read) =>
      countedDocuments(dialect, { ...filter.match!, facets }, cap + 1, listed).execute(read),
    );
    return documentsTotal(Number(rows[0]!.count), rows[0]!.documents, facets, cap, listed);
  }
  // Catalog lists without a search are the documents' facet terms alone, counted as a search's documents are
  // and kept with them for the page (listedCatalogFilter).
  const listTerms = catalogFacetTerms(dialect, filter);
  if (listTerms !== undefined) {
    const { rows } = await withIndexPlans(db, dialect, (read) =>
      countedDocuments(dialect, facetTermsMatch(listTerms), cap + 1, listed).execute(read),
    );
    return documentsTotal(Number(rows[0]!.count), rows[0]!.documents, listTerms, cap, listed);
  }
  // Anything else checks the rows the filter names. The matches drive (plan 'gather'), never a walk of a whole
  // index with the filters as probes.
  const gathered: ResourceFilter = { ...filter, plan: 'gather' };
  const matches = db
    .selectFrom('resources')
    .select(sql.lit(1).as('one'))
    .where((eb) => resourceFilterCondition(eb, dialect, gathered))
    .limit(cap + 1);
  const row = await withIndexPlans(db, dialect, (read) =>
    read
      .selectFrom(sql`(${matches})`.as('m'))
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow(),
  );
  return cappedTotal(Number(row.count), cap);
}
