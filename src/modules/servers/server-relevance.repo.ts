// The directory's relevance pages (GET /servers?search=…&sort=relevance). The relevance tiers
// (search/directory-match.ts: the exact name, every word in the name, in the name and keywords, in those and the
// description, anywhere) are nested: a server of a tier matches every later tier's condition. So the servers up
// to a tier are one match (`wordsUpTo`), counted in its index up to the page's end, and a page is read one tier
// class at a time, each in rank order: the classes before the one that reaches the page's end are smaller than
// the page, and that one is read by walking the rank index when it is large (as a search in rank order is).
// Ordering every match by a CASE of the tiers rechecked each one's document out of line on PostgreSQL: at 1M
// resources (180k servers) p50 / p90 / p99 151 / 514 / 598 ms, against 15 / 23 / 33 this way (SQLite, which read
// three FTS5 lists per statement: 82 / 306 / 361 against 8 / 22 / 66).
import { sql } from 'kysely';
import type { Compilable, Kysely, RawBuilder, SqlBool } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import type { DB } from '../../core/db/schema.js';
import { documentMatches, queryText } from '../search/directory-match.js';
import { withIndexPlans } from '../search/index-plans.js';
import { SEARCH_LIMITS } from '../search/resource-facets.js';
import { SERVER_INDEX } from '../search/server-documents.js';
import type { SearchQuery } from '../search/text.js';
import {
  besideDocuments,
  cardsOf,
  catalogListsOf,
  linkedServers,
  linkProbe,
  listTerms,
  SERVER_SCAN_ROWS,
} from './server-directory.repo.js';
import type { ServerFilter } from './server-directory.repo.js';
import { cards, sorted } from './server-reads.repo.js';
import type { ServerCardRow } from './server-reads.repo.js';
import { readApprovedTotal } from './servers.repo.js';

/** The last tier: every word somewhere in the document, the owner's names included. */
const LAST_TIER = SERVER_INDEX.columns.length;

/**
 * The documents (under `alias`) of `tier` or an earlier one: the exact name (tier 0: a name that is the query's
 * words has every one of them), every word within the first `tier` columns, or anywhere; with `terms`
 * (PostgreSQL: the catalog lists' facet terms, server-directory.repo.ts listTerms) in the same index scan.
 */
function wordsUpTo(dialect: DialectName, search: SearchQuery, tier: number, alias: string, terms?: string) {
  if (tier > 0) {
    const fields = tier === LAST_TIER ? undefined : tier;
    return documentMatches(dialect, SERVER_INDEX, alias, search, fields, terms);
  }
  const exact = exactName(search, alias);
  return terms === undefined
    ? exact
    : sql<SqlBool>`(${exact} and ${sql.ref(`${alias}.document`)} @@ ${terms}::tsquery)`;
}

const exactName = (search: SearchQuery, alias: string) =>
  sql<SqlBool>`${sql.ref(`${alias}.name_text`)} = ${queryText(search)}`;

/** The documents of tier `tier` alone: up to it and not up to the one before. */
function wordsOfTier(dialect: DialectName, search: SearchQuery, tier: number, alias: string, terms?: string) {
  const upTo = wordsUpTo(dialect, search, tier, alias, terms);
  if (tier === 0) return upTo;
  return sql<SqlBool>`(${upTo} and not ${wordsUpTo(dialect, search, tier - 1, alias)})`;
}

/**
 * The documents (alias `d`) of `tier` or an earlier one, `only` that tier, with the filter's catalog lists: on
 * PostgreSQL as the documents' facet terms, on SQLite through their links.
 */
function tierDocuments(
  dialect: DialectName,
  filter: ServerFilter,
  search: SearchQuery,
  tier: number,
  only: boolean,
) {
  const terms = listTerms(dialect, filter);
  const conditions = [
    only ? wordsOfTier(dialect, search, tier, 'd', terms) : wordsUpTo(dialect, search, tier, 'd', terms),
    ...catalogListsOf(besideDocuments(dialect, filter)).map(
      (list) => sql<SqlBool>`d.server_id in ${linkedServers(list)}`,
    ),
  ];
  return sql<SqlBool>`(${sql.join(conditions, sql` and `)})`;
}

/** The number of documents `where` holds, up to `cap`, from the indexes (index-plans.ts). */
async function countUpTo(db: Kysely<DB>, dialect: DialectName, where: RawBuilder<SqlBool>, cap: number) {
  const count = sql<{ count: string | number }>`select count(*) as count from (select 1 from server_search d
    where ${where} limit ${cap}) m`;
  const { rows } = await withIndexPlans(db, dialect, (read) => count.execute(read));
  return Number(rows[0]?.count ?? 0);
}

async function readIds(db: Kysely<DB>, dialect: DialectName, query: Compilable<{ id: string }>) {
  const { rows } = await withIndexPlans(db, dialect, (read) => read.executeQuery(query));
  return rows.map((row) => row.id);
}

/**
 * A relevance page of the filter's APPROVED servers: by tier, then by rank. Each tier up to the one
 * holding the page's end is counted to that end (exact below it); a tier's page is gathered from its documents
 * and sorted, or, when the tier is large enough that a walk of the rank index finds its rows within
 * SERVER_SCAN_ROWS (search/plan-costs.ts scanPays), read by that walk testing each row's document.
 */
export async function listRelevantServers(
  db: Kysely<DB>,
  dialect: DialectName,
  filter: ServerFilter,
  search: SearchQuery,
  page: { limit: number; offset: number },
): Promise<ServerCardRow[]> {
  const pageEnd = page.offset + page.limit;
  const ids: string[] = [];
  // The servers of the tiers before this one: exact, since each of them counted below the page's end.
  let before = 0;
  for (let tier = 0; tier <= LAST_TIER && before < pageEnd; tier += 1) {
    const last = tier === LAST_TIER;
    const upTo = last
      ? Infinity
      : await countUpTo(db, dialect, tierDocuments(dialect, filter, search, tier, false), pageEnd);
    const from = Math.max(page.offset, before);
    const size = Math.min(pageEnd, upTo) - from;
    if (size > 0) {
      const skip = from - before;
      // Only the tier reaching the page's end may be large: the ones before it are smaller than the page. Of the
      // last tier, which is not counted, nothing is known.
      const known = last ? 0 : upTo - before;
      const walk =
        (last || upTo >= pageEnd) &&
        (await walkPays(db, dialect, filter, search, tier, before, known, skip + size));
      ids.push(...(await tierPage(db, dialect, filter, search, tier, { skip, size, walk })));
    }
    before = upTo;
  }
  return cardsOf(
    db,
    dialect,
    ids.map((id) => ({ id })),
  );
}

/**
 * Whether the tier's rows are found walking the rank index within SERVER_SCAN_ROWS rows, for a page ending at
 * `pageEnd` of the tier: about pageEnd × APPROVED servers / the tier's size. `known` is a lower bound of that
 * size; when it does not settle the question the tier is counted further, to the size that would.
 */
async function walkPays(
  db: Kysely<DB>,
  dialect: DialectName,
  filter: ServerFilter,
  search: SearchQuery,
  tier: number,
  before: number,
  known: number,
  pageEnd: number,
): Promise<boolean> {
  const needed = Math.ceil((pageEnd * (await readApprovedTotal(db))) / SERVER_SCAN_ROWS[dialect]);
  if (known >= needed) return true;
  if (needed > SEARCH_LIMITS.countCap) return false;
  const counted = await countUpTo(
    db,
    dialect,
    tierDocuments(dialect, filter, search, tier, false),
    before + needed,
  );
  return counted - before >= needed;
}

/** `size` ids of the tier's own servers from `skip` on, in rank order. */
async function tierPage(
  db: Kysely<DB>,
  dialect: DialectName,
  filter: ServerFilter,
  search: SearchQuery,
  tier: number,
  page: { skip: number; size: number; walk: boolean },
): Promise<string[]> {
  if (!page.walk) {
    const gathered = db
      .selectFrom('server_search as d')
      .innerJoin('servers', 'servers.id', 'd.server_id')
      .select('servers.id')
      .where(tierDocuments(dialect, filter, search, tier, true))
      .orderBy('servers.rank', (ob) => ob.asc().nullsLast())
      .orderBy('servers.id')
      .limit(page.size)
      .offset(page.skip);
    return readIds(db, dialect, gathered);
  }
  const words = wordsOfTier(dialect, search, tier, 'ws');
  const probes = [
    dialect === 'postgres'
      ? // `offset 0` keeps the test a subplan run for each walked row: pulled up into a join, the planner may
        // gather every document of the words first, which is what walking avoids.
        sql<SqlBool>`exists (select 1 from server_search ws where ws.server_id = servers.id and ${words} offset 0)`
      : // The tier's ids read once into an in-memory index, each walked row tested against it (the + keeps them
        // from driving the walk). Probing the row's document instead read the FTS5 match list whole for each
        // row: `epic`'s exact names at 1M, 1.2 s for a page.
        sql<SqlBool>`+servers.id in (select ws.server_id from server_search ws where ${words})`,
    ...catalogListsOf(filter).map((list) => linkProbe(list, 'servers.id')),
  ];
  const walked = sorted(
    cards(db, dialect)
      .where('servers.status', '=', 'APPROVED')
      .where(sql<SqlBool>`${sql.join(probes, sql` and `)}`),
    'rank',
  )
    .clearSelect()
    .select('servers.id')
    .limit(page.size)
    .offset(page.skip);
  return (await walked.execute()).map((row) => row.id);
}
