// Facets of GET /resources (`facets=type,tags,categories,gameVersions`): how many resources of the current result
// set have each type, tag, category and game version. Without a search or catalog filter they are read from the
// maintained counters (resource_facet_counts); otherwise they are counted over the matches' facet values, at most
// SEARCH_LIMITS.facetScanLimit of them (past that the counts cover the first ones only and say so: facetsExact
// false).
import type { Kysely } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import type { DB, ResourceType } from '../../core/db/schema.js';
import {
  catalogFacetTerms,
  documentsAnswer,
  filterFacetTerms,
  isSearchAlone,
} from '../resources/catalog-lists.js';
import { resourceFilterCondition } from '../resources/resource-views.repo.js';
import { codedFacetCounts, countFacetCodes, matchingFacetCodes } from './resource-facet-codes.js';
import type { FacetCounts } from './resource-facet-codes.js';
import { facetTermsMatch } from './resource-match.js';
import type { SearchMatch } from './resource-match.js';
import { prefixIndexed } from './match.js';
import { wholeWords } from './text.js';
import type { ResourceFilter } from '../resources/resource-views.repo.js';
import type { FacetName } from './resource-facet-keys.js';

export const FACET_NAMES = ['type', 'tags', 'categories', 'gameVersions'] as const;
export type FacetRequest = (typeof FACET_NAMES)[number];
export type Facets = Partial<Record<FacetRequest, Record<string, number>>>;

/** Values shown per facet, by count then key (what Meilisearch and Typesense clients expect by default). */
export const FACET_VALUES = 50;

/** Tuning (tests lower them to reach the inexact paths with a small corpus). */
export const SEARCH_LIMITS = {
  /** Matches counted at most for a total; past it the total is this lower bound and totalExact is false. */
  countCap: 10_000,
  /** The matches a text search's pages reach, as many as its total counts (result-window.ts). */
  resultWindow: 10_000,
  /**
   * Matches whose facet values are read at most; past it facetsExact is false and each count is a lower bound.
   * Reading and counting a match's codes costs ≈2 µs (SQLite, 1M; its keys cost ≈7 µs at 100k): 2,000 keep it
   * near 4 ms a request.
   */
  facetScanLimit: 2_000,
  /**
   * SQLite, a search or catalog filter ordered by a column: walk the sort index and probe each row (cost about
   * (offset + limit) × approved / matches rows), or gather the matches and sort them (cost: the matches). Walk
   * when matches > walkFromMatches and matches² ≥ (offset + limit) × approved × walkRatio, walkRatio being a
   * walked row's cost over a gathered match's (measured at 100k: ≈2.7 µs for a walked row with its probe,
   * ≈1.5–3 µs per gathered match).
   */
  walkFromMatches: 500,
  walkRatio: 1,
  /**
   * A search ordered by a column walks the sort index and tests each row's text (MatchPlan 'scan') when that reads
   * at most about this many rows: (offset + limit) × approved / matches (past the cap, the cap: the most a page
   * costs then). A common word's match list read from the index costs more than the page (measured at 1M,
   * SQLite: a word in 196k documents, page 1 by date, 23–70 ms through the list, 0.3 ms testing rows; two common
   * words at offset 200, 72–180 → 8–12 ms). Testing a row costs ≈3–5 µs.
   */
  scanRows: 5_000,
  /**
   * PostgreSQL, relevance's name tiers: a last word typed as a prefix is written out as the name words it
   * completes to when they are at most this many (search/name-words.ts withNameCompletions); past it, the prefix.
   */
  nameCompletions: 32,
  /**
   * PostgreSQL, a search typed as a short prefix (resource-totals.ts lastWordMergesManyLists) with catalog lists: the
   * lists become facet terms of the GIN scan (resource-totals.ts withFacetTerms) when each has at least this many
   * link rows; below, its resources are joined and their documents tested one by one (≈25–60 µs each at 1M, where a
   * common prefix's GIN bitmap costs 100–200 ms). (SQLite always reads them as terms.)
   */
  facetTermsFrom: 4_000,
  /**
   * One catalog list without a search, ordered by a column: the costs (µs, measured at 1M) by which
   * hashedWalkPays chooses between walking the sort index testing each row against the list's link ids read once
   * (MatchPlan 'hashed', catalog-lists.ts hashedLinkTest) and the other plans, a walk probing the link table per
   * row or the matches gathered and sorted. SQLite's gathered matches are random reads of an 11 GB file at 1M
   * (a tag of 3,756, page 8: 46–69 ms gathered, 31–37 ms hashed); its probes in date order cost less than
   * others (resource ids grow with time, so they read the link table in order).
   */
  hashedWalk: {
    postgres: { hashLink: 0.2, testRow: 0.25, probeRow: 6, gatherMatch: 5 },
    sqlite: { hashLink: 0.3, testRow: 0.4, probeRow: 2.7, gatherMatch: 12 },
  },
  /**
   * SQLite: reading the resource id of a document its count listed (a probe of resource_search's doc_id index,
   * µs at 1M), for listedMatchesPlan. Slower than a link id (hashLink): the documents are spread over the index.
   */
  documentIdRead: 2,
  /**
   * A hashed walk of a search's listed matches reads at most this many times the rows it is costed
   * at (plan-costs.ts hashedWalkRows), and at least hashedWalkMinRows, then gathers the page: the matches may
   * cluster at the far end of the order.
   */
  hashedWalkSlack: 4,
  hashedWalkMinRows: 1_000,
};

const FACET_OF: Record<FacetRequest, FacetName> = {
  type: 'type',
  tags: 'tag',
  categories: 'category',
  gameVersions: 'version',
};

type Counts = Map<string, number>;

/** Catalog ids → the names facets show (tag and category slugs, game version names); types stay as they are. */
async function labels(db: Kysely<DB>, facet: FacetName, ids: string[], type: ResourceType | undefined) {
  const out = new Map<string, string>();
  if (facet === 'type') {
    for (const id of ids) out.set(id, id);
    return out;
  }
  for (let start = 0; start < ids.length; start += 500) {
    const chunk = ids.slice(start, start + 500);
    if (facet === 'tag') {
      const rows = await db
        .selectFrom('resource_tags')
        .select(['id', 'slug'])
        .where('id', 'in', chunk)
        .execute();
      for (const row of rows) out.set(row.id, row.slug);
    } else if (facet === 'category') {
      let query = db.selectFrom('resource_categories').select(['id', 'slug']).where('id', 'in', chunk);
      // A type filter shows that type's categories only (the counters count every type's).
      if (type !== undefined) query = query.where('resource_type', '=', type);
      for (const row of await query.execute()) out.set(row.id, row.slug);
    } else {
      const rows = await db
        .selectFrom('game_versions')
        .select(['id', 'name'])
        .where('id', 'in', chunk)
        .execute();
      for (const row of rows) out.set(row.id, row.name);
    }
  }
  return out;
}

/**
 * Counts by id → the facet's map: keyed by label, top FACET_VALUES by count then key. Category slugs are unique
 * per type only: without a type filter two types' categories of one slug are added up.
 */
async function render(
  db: Kysely<DB>,
  facet: FacetName,
  counts: Counts,
  type: ResourceType | undefined,
): Promise<Record<string, number>> {
  const names = await labels(db, facet, [...counts.keys()], type);
  const byLabel = new Map<string, number>();
  for (const [id, count] of counts) {
    const label = names.get(id);
    if (label !== undefined && count > 0) byLabel.set(label, (byLabel.get(label) ?? 0) + count);
  }
  const top = [...byLabel].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(top.slice(0, FACET_VALUES));
}

/** Facets of every APPROVED resource, or of one type's: read from the counters. */
export async function facetsFromCounters(
  db: Kysely<DB>,
  requested: readonly FacetRequest[],
  type: ResourceType | undefined,
): Promise<Facets> {
  const facets: Facets = {};
  for (const name of requested) {
    const facet = FACET_OF[name];
    // Types are counted among all resources; categories belong to one type and need no scope.
    const scope = facet === 'type' || facet === 'category' ? '' : (type ?? '');
    let query = db
      .selectFrom('resource_facet_counts')
      .select(['value', 'resource_count'])
      .where('facet', '=', facet)
      .where('scope', '=', scope)
      .where('resource_count', '>', 0);
    if (facet === 'type' && type !== undefined) query = query.where('value', '=', type);
    const rows = await query.execute();
    const counts: Counts = new Map(rows.map((row) => [row.value, Number(row.resource_count)]));
    facets[name] = await render(db, facet, counts, type);
  }
  return facets;
}

/**
 * SQLite: up to `limit` facet codes of a search's matches; a word typed as a prefix the index keeps no list of:
 * from the matches of the words taken whole when they are that many (a subset of the matches, read as the index
 * yields them, where the prefix makes FTS5 merge its words' lists first: 50–180 ms at 1M).
 */
async function searchFacetCodes(db: Kysely<DB>, match: SearchMatch, limit: number) {
  const whole = prefixIndexed(match.query) ? undefined : wholeWords(match.query);
  if (whole !== undefined) {
    const subset = await matchingFacetCodes({ ...match, query: whole }, limit).execute(db);
    if (subset.rows.length >= limit) return subset.rows;
  }
  return (await matchingFacetCodes(match, limit).execute(db)).rows;
}

/** The first `limit` of the filter's matches, joined to their documents. */
function filteredMatches(executor: Kysely<DB>, dialect: DialectName, filter: ResourceFilter, limit: number) {
  return executor
    .selectFrom('resources')
    .innerJoin('resource_search as s', 's.resource_id', 'resources.id')
    .where((eb) => resourceFilterCondition(eb, dialect, filter))
    .limit(limit);
}

/**
 * The facet values of the first `limit` documents of a filter's matches, and how many there were (up to
 * `limit` + 1). The documents' own match, when there is one (facetsOfMatches), finds them; otherwise the filter
 * over the resources. PostgreSQL counts their vectors' codes (0035), SQLite their documents' codes (0037).
 */
async function countFacets(
  db: Kysely<DB>,
  dialect: DialectName,
  filter: ResourceFilter,
  documentsMatch: SearchMatch | undefined,
  limit: number,
): Promise<{ counts: FacetCounts; matched: number }> {
  if (dialect === 'postgres') {
    if (documentsMatch !== undefined) return codedFacetCounts(db, documentsMatch, limit);
    // The filter's matches joined to their vectors. With a search, through GIN (index-plans.ts): left to itself,
    // PostgreSQL's planner read the first documents in table order, testing each TOASTed document, 17,073 of
    // them for 2,001 of a tag at 1M: 245 ms.
    const matches = filteredMatches(db, dialect, filter, limit + 1)
      .innerJoin('resource_search_vectors as v', 'v.resource_id', 's.resource_id')
      .select('v.facet_codes');
    return codedFacetCounts(db, matches, limit, filter.match !== undefined);
  }
  const rows =
    documentsMatch === undefined
      ? await filteredMatches(db, dialect, filter, limit + 1)
          .innerJoin('resource_search_facet_codes as c', 'c.doc_id', 's.doc_id')
          .select('c.codes')
          .execute()
      : isSearchAlone(filter)
        ? await searchFacetCodes(db, documentsMatch, limit + 1)
        : (await matchingFacetCodes(documentsMatch, limit + 1).execute(db)).rows;
  return countFacetCodes(db, rows, limit);
}

/**
 * Facets of the resources a filter (and search) matches, from their facet codes (resource-facet-codes.ts,
 * countFacets). Reads at most facetScanLimit + 1 documents: `exact` false past it, and then `matched` is only a
 * lower bound.
 */
export async function facetsOfMatches(
  db: Kysely<DB>,
  dialect: DialectName,
  filter: ResourceFilter,
  requested: readonly FacetRequest[],
): Promise<{ facets: Facets; exact: boolean; matched: number }> {
  const limit = SEARCH_LIMITS.facetScanLimit;
  const listTerms = catalogFacetTerms(dialect, filter);
  // The documents' own match: a search alone, a search whose filters are its facet terms (read that way by its
  // count: PostgreSQL's planner, given the filter over `resources` instead, read 2,001 matches of a common word
  // with a tag and a type in 0.9–1.4 s at 1M), or catalog filters the facet terms answer.
  const documentsMatch = isSearchAlone(filter)
    ? filter.match!
    : documentsAnswer(dialect, filter)
      ? { ...filter.match!, facets: filterFacetTerms(dialect, filter) }
      : listTerms !== undefined
        ? facetTermsMatch(listTerms)
        : undefined;
  const { counts, matched } = await countFacets(db, dialect, filter, documentsMatch, limit);
  return renderedFacets(db, filter, requested, counts, matched);
}

/**
 * The requested facets of a filter's matches from the counts of the first facetScanLimit of them, `matched` of
 * them read (more than facetScanLimit: the counts are lower bounds).
 */
export async function renderedFacets(
  db: Kysely<DB>,
  filter: ResourceFilter,
  requested: readonly FacetRequest[],
  counts: FacetCounts,
  matched: number,
): Promise<{ facets: Facets; exact: boolean; matched: number }> {
  const limit = SEARCH_LIMITS.facetScanLimit;
  const exact = matched <= limit;
  const facets: Facets = {};
  for (const name of requested) {
    facets[name] = await render(db, FACET_OF[name], counts.get(FACET_OF[name]) ?? new Map(), filter.type);
  }
  return { facets, exact, matched: exact ? matched : limit };
}

/** One maintained counter: APPROVED resources with this facet value (within a type's when scoped). */
export async function readFacetCount(
  db: Kysely<DB>,
  facet: FacetName,
  scope: string,
  value: string,
): Promise<number> {
  const row = await db
    .selectFrom('resource_facet_counts')
    .select('resource_count')
    .where('facet', '=', facet)
    .where('scope', '=', scope)
    .where('value', '=', value)
    .executeTakeFirst();
  return Number(row?.resource_count ?? 0);
}
