// The costs that choose a search's or catalog filter's plan (search/resource-match.ts MatchPlan): walking a sort
// index and testing or probing each row, reading a list's ids once, or gathering the matches; each from the
// counts, the page's end and SEARCH_LIMITS.
import type { DialectName } from '../../core/db/database.js';
import { SEARCH_LIMITS } from './resource-facets.js';
import type { MatchPlan } from './resource-match.js';

/**
 * Whether a search ordered by a column tests rows of the sort index (MatchPlan 'scan'): when about
 * (offset + limit) × approved / matches rows, the matches being the count or, past the cap, the cap (the fewest
 * there can be), are at most `rows` (by default SEARCH_LIMITS.scanRows).
 */
export async function scanPays(
  total: { total: number; exact: boolean },
  pageEnd: number,
  approved: () => Promise<number>,
  rows: number = SEARCH_LIMITS.scanRows,
): Promise<boolean> {
  if (total.total === 0) return false;
  return pageEnd * (await approved()) <= rows * total.total;
}

/**
 * Whether walking the sort index beats gathering the matches (SEARCH_LIMITS.walkRatio): SQLite's plan choice, and
 * on PostgreSQL whether a search alone lists its few matches by id. `walked`, the rows of the index walked (the
 * APPROVED counter, or a type's when its (type, status, column) index is), is read only when the matches are past
 * walkFromMatches.
 */
export async function walkPays(
  matches: number,
  pageEnd: number,
  walked: () => Promise<number>,
): Promise<boolean> {
  if (matches <= SEARCH_LIMITS.walkFromMatches) return false;
  return matches * matches >= pageEnd * (await walked()) * SEARCH_LIMITS.walkRatio;
}

/**
 * Whether a page of one catalog list's `matches` ordered by a column walks the sort index testing rows against
 * the list's `links` ids read once (plan 'hashed'): when they are at most `hashLimit` (hashedLinksLimit) and that
 * costs less than probing the rows the walk reads, about pageEnd × walked / matches, and less than gathering.
 * At 1M on PostgreSQL: a tag on 1% of the resources from page 1 on (2,000 rows walked for 20); one on 44% never
 * (its walk is short: probes cost less than reading its ids); one on 0.1% never (its matches cost less gathered).
 */
export async function hashedWalkPays(
  dialect: DialectName,
  list: { links: number; matches: number },
  pageEnd: number,
  walked: () => Promise<number>,
  hashLimit: number,
): Promise<boolean> {
  const { links, matches } = list;
  if (matches === 0 || links > hashLimit) return false;
  const cost = SEARCH_LIMITS.hashedWalk[dialect];
  const rows = (pageEnd * (await walked())) / matches;
  const hashed = links * cost.hashLink + rows * cost.testRow;
  return hashed < rows * cost.probeRow && hashed < matches * cost.gatherMatch;
}

/**
 * The plan of a page ordered by a column (or popularity) of a search's `matches` whose documents its count
 * listed (SearchMatch.documents): the one costing least (SEARCH_LIMITS.hashedWalk) of reading their resource ids
 * once and walking the sort index testing rows against them, index only ('hashed'); on SQLite walking it probing
 * each row's document (walk); gathering them (each a random row). At 1M on SQLite, a top tier of 1,868 by
 * popularity: 10–11 ms gathered, 15–16 walked, 6.6 hashed; 3,660 matches by downloads: 18–20, 17–18, 10–11.
 * (In date order a walk's probes read the documents' resource id index in order: cheaper than costed.) On
 * PostgreSQL, a top tier of 2,153 by popularity, page 1: 20–23 ms gathered, 4–6 hashed (migration 0042); the
 * listed ids are fewer than the count's cap, so their hash fits in work_mem.
 */
export async function listedMatchesPlan(
  dialect: DialectName,
  matches: number,
  pageEnd: number,
  walked: () => Promise<number>,
): Promise<'hashed' | 'walk' | 'gather'> {
  const cost = SEARCH_LIMITS.hashedWalk[dialect];
  if (matches === 0) return 'gather';
  const rows = (pageEnd * (await walked())) / matches;
  const idRead = dialect === 'sqlite' ? SEARCH_LIMITS.documentIdRead : cost.hashLink;
  const costs = {
    hashed: matches * idRead + rows * cost.testRow,
    // PostgreSQL has no walk probing a listed match per row: its planner would choose the join.
    walk: dialect === 'sqlite' ? rows * cost.probeRow : Number.POSITIVE_INFINITY,
    gather: matches * cost.gatherMatch,
  };
  return costs.hashed <= costs.walk && costs.hashed <= costs.gather
    ? 'hashed'
    : costs.walk <= costs.gather
      ? 'walk'
      : 'gather';
}

/**
 * The most rows of the sort index a hashed walk of `matches` listed ids reads for a page ending at
 * `pageEnd`: SEARCH_LIMITS.hashedWalkSlack times the rows it is costed at, at least hashedWalkMinRows; with
 * the number of listed ids, by which a page the bound left short is told (ResourceFilter.walk).
 */
export async function hashedWalkRows(
  matches: number,
  pageEnd: number,
  walked: () => Promise<number>,
): Promise<{ rows: number; listed: number }> {
  const rows = (pageEnd * (await walked())) / Math.max(1, matches);
  const bound = Math.max(SEARCH_LIMITS.hashedWalkMinRows, Math.ceil(rows * SEARCH_LIMITS.hashedWalkSlack));
  return { rows: bound, listed: matches };
}

/**
 * PostgreSQL: the plan of a page of a search alone (or of one whose filters its documents answer) in a column's
 * order, from its count. Listed (the count read every match's id): the ids hashed and the sort index walked
 * against them, or the matches gathered by id, as listedMatchesPlan says; at 1M, 3,660 matches by date, page 1:
 * 35–44 ms gathered (a probe each), the walk ~4,200 rows index only. Unlisted (past the count's cap): 'scan' when
 * a short walk tests enough rows, else the planner's choice.
 */
export async function searchPagePlan(
  total: { total: number; exact: boolean },
  listed: boolean,
  pageEnd: number,
  walked: () => Promise<number>,
): Promise<MatchPlan | undefined> {
  if (listed) {
    return (await listedMatchesPlan('postgres', total.total, pageEnd, walked)) === 'hashed'
      ? 'hashed'
      : 'ids';
  }
  if (total.exact && !(await walkPays(total.total, pageEnd, walked))) return 'ids';
  return (await scanPays(total, pageEnd, walked)) ? 'scan' : undefined;
}

/**
 * The most link ids hashedWalkPays reads: at most 100,000 (20–30 ms to read), SQLite's only bound. PostgreSQL
 * hashes a subplan whose rows, at ~64 bytes each for an id, fit in work_mem (MB) × hash_mem_multiplier (at least
 * 1); the counters the choice reads count APPROVED resources, the ids read are every resource's, and the planner
 * estimates: 256 bytes an id leaves four times the room.
 */
export const hashedLinksLimit = (dialect: DialectName, workMemMb: number): number =>
  dialect === 'sqlite' ? 100_000 : Math.min(100_000, Math.floor((workMemMb * 1024 * 1024) / 256));

/**
 * The fewest matches at which scanPays and walkPays both hold (capped at countCap): a count capped there chooses
 * the same plan as a count to the cap, visiting fewer matches (relevance's top tier at 1M: 4,473 rather than
 * 10,001 for page 1).
 */
export async function plansSettledAt(pageEnd: number, approved: () => Promise<number>): Promise<number> {
  const rows = pageEnd * (await approved());
  const scan = Math.ceil(rows / SEARCH_LIMITS.scanRows);
  const walk = Math.max(
    SEARCH_LIMITS.walkFromMatches + 1,
    Math.ceil(Math.sqrt(rows * SEARCH_LIMITS.walkRatio)),
  );
  return Math.min(SEARCH_LIMITS.countCap, Math.max(pageEnd, scan, walk));
}
