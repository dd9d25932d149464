// The public directory's pages and totals (GET /servers): APPROVED servers, filtered by the full-text search
// (server_search), categories and tags, and sorted. The default (unfiltered) pages are prepared once.
import { sql } from 'kysely';
import type { Compilable, Expression, ExpressionBuilder, Kysely, SqlBool, Transaction } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import { prepared } from '../../core/db/prepared.js';
import type { DB } from '../../core/db/schema.js';
import { cappedTotal } from '../search/capped-total.js';
import type { CappedTotal } from '../search/capped-total.js';
import { countMatchesUpTo, documentMatches } from '../search/directory-match.js';
import { tsLexeme } from '../search/match.js';
import { textMatch } from '../search/document-text.js';
import { withIndexPlans, withIndexPlansIf } from '../search/index-plans.js';
import { SEARCH_LIMITS } from '../search/resource-facets.js';
import { SERVER_INDEX, serverFacetTerm } from '../search/server-documents.js';
import type { SearchQuery } from '../search/text.js';
import { cards, serverIds, sorted } from './server-reads.repo.js';
import type { ServerCardRow, ServerSort } from './server-reads.repo.js';

type Executor = Kysely<DB> | Transaction<DB>;

/**
 * A page of every APPROVED server: its ids picked from the sort index first, then their cards. Selecting the cards
 * while skipping computed each skipped row's tags and categories (PostgreSQL projects below the OFFSET): offset
 * 170,000 at 1M resources (180k servers) took 2.6 s, its ids alone 16–20 ms.
 */
const approvedPage = (sort: Exclude<ServerSort, 'relevance'>) =>
  prepared<ServerCardRow, [number, number]>(2, (db, dialect, limit, offset) => {
    const ids = sorted(serverIds(db).where('servers.status', '=', 'APPROVED'), sort)
      // prepared() swaps these placeholders for the numbers at run time.
      .limit(limit as unknown as number)
      .offset(offset as unknown as number);
    return sorted(cards(db, dialect).where('servers.id', 'in', ids), sort);
  });

const APPROVED_PAGES: Record<Exclude<ServerSort, 'relevance'>, ReturnType<typeof approvedPage>> = {
  rank: approvedPage('rank'),
  players: approvedPage('players'),
  newest: approvedPage('newest'),
  votes: approvedPage('votes'),
};

export interface ServerFilter {
  /** Parsed (search/text.ts); absent when the search has no word. */
  search?: SearchQuery;
  categoryIds?: readonly string[];
  tagIds?: readonly string[];
}

export const isUnfiltered = (filter: ServerFilter): boolean =>
  filter.search === undefined &&
  (filter.categoryIds ?? []).length === 0 &&
  (filter.tagIds ?? []).length === 0;

/** A catalog filter of the directory: its link table and column, and the wanted values (any of them). */
export interface ServerCatalogList {
  kind: 'tag' | 'category';
  table: 'server_category_links' | 'server_tag_links';
  column: 'category_id' | 'tag_id';
  ids: readonly string[];
}

/** The filter's catalog lists that ask for something, tags first. */
export function catalogListsOf(filter: ServerFilter): ServerCatalogList[] {
  const lists: ServerCatalogList[] = [
    { kind: 'tag', table: 'server_tag_links', column: 'tag_id', ids: filter.tagIds ?? [] },
    {
      kind: 'category',
      table: 'server_category_links',
      column: 'category_id',
      ids: filter.categoryIds ?? [],
    },
  ];
  return lists.filter((list) => list.ids.length > 0);
}

/**
 * PostgreSQL: the filter's catalog lists as its documents' facet terms (migration 0040), a tsquery ANDed with the
 * search's words in one GIN scan: any value of each list, every list. Counting a common word with a tag on 36k
 * servers hashed the tag's links against the word's documents (~50 ms at 1M resources, 180k servers).
 */
export function listTerms(dialect: DialectName, filter: ServerFilter): string | undefined {
  const lists = catalogListsOf(filter);
  if (dialect !== 'postgres' || lists.length === 0) return undefined;
  return lists
    .map((list) => `(${list.ids.map((id) => tsLexeme(serverFacetTerm(list.kind, id))).join(' | ')})`)
    .join(' & ');
}

/**
 * The server_search rows (under `alias`) of the filter's search: its words and, on PostgreSQL, its catalog lists'
 * terms. Only APPROVED servers have a document, so these are the filter's matches but for besideDocuments.
 */
export const searchDocuments = (
  dialect: DialectName,
  search: SearchQuery,
  filter: ServerFilter,
  alias: string,
) => documentMatches(dialect, SERVER_INDEX, alias, search, undefined, listTerms(dialect, filter));

/**
 * The documents a search's matches are read from where only their number or server ids are wanted (totals,
 * facets): on PostgreSQL their hash-partitioned copies (migration 0045), whose scans stop in the first partitions
 * under a LIMIT; on SQLite server_search (its FTS5 rowids). (A page's gathered matches measured no faster there:
 * they are all read, partition after partition.)
 */
export const matchedDocuments = (dialect: DialectName): string =>
  dialect === 'postgres' ? SERVER_INDEX.vectors! : SERVER_INDEX.table;

/**
 * What a search's documents (searchDocuments) leave to be checked: the catalog lists on SQLite, whose FTS5 index
 * holds no facet terms (they are checked through their links); nothing on PostgreSQL.
 */
export const besideDocuments = (dialect: DialectName, filter: ServerFilter): ServerFilter =>
  dialect === 'postgres' ? {} : { categoryIds: filter.categoryIds ?? [], tagIds: filter.tagIds ?? [] };

/** True when the server `serverId` names is linked to any of the list's values: a probe of its own links. */
export const linkProbe = (list: ServerCatalogList, serverId: string) =>
  sql<SqlBool>`exists (select 1 from ${sql.table(list.table)} lp where lp.server_id = ${sql.ref(serverId)}
    and lp.${sql.ref(list.column)} in (${sql.join(list.ids)}) limit 1)`;

/** The ids of the servers linked to any of the list's values. */
export const linkedServers = (list: ServerCatalogList) =>
  sql<string>`(select l.server_id from ${sql.table(list.table)} l
    where l.${sql.ref(list.column)} in (${sql.join(list.ids)}))`;

/**
 * How a filtered page is read (the count decides, server-lists.service.ts): 'scan' walks the sort index and tests
 * each row's document text (a search with many matches), 'walk' walks it and probes each row's links (catalog
 * lists with many matches); unset, the matches are gathered and sorted.
 */
export type ServerPlan = 'scan' | 'walk';

/**
 * The rows a server search may walk for the 'scan' plan (search/plan-costs.ts scanPays). On PostgreSQL each
 * walked row reads its text out of line (migration 0039: ~8 buffers, ~6 µs warm) while probing a match costs
 * ~10 µs: at 1M resources (180k servers) the two cross near 1,500 matches, ~2,400 rows walked for a first page.
 */
export const SERVER_SCAN_ROWS: Record<DialectName, number> = {
  postgres: 2_000,
  sqlite: SEARCH_LIMITS.scanRows,
};

/**
 * Conditions on `servers` for a filter: APPROVED, the full-text search (every word, the last as a prefix; only
 * APPROVED servers have a document), any of the categories, any of the tags. Walking ('walk'), the lists are
 * probes of the row's own links (their primary keys start with server_id): gathering a tag on 80,554 of 179,963
 * servers at 1M to sort them took 277–311 ms for a page, walking 0.4–1.5 ms.
 */
export function filterConditions(dialect: DialectName, filter: ServerFilter, plan?: ServerPlan) {
  return (eb: ExpressionBuilder<DB, 'servers'>): Expression<SqlBool> => {
    const conditions: Expression<SqlBool>[] = [eb('servers.status', '=', 'APPROVED')];
    if (filter.search !== undefined && plan === 'scan') {
      // Many matches: each row of the sort index is tested against its document's text (the index's own match,
      // search/resource-match.ts textMatch) instead of every match being listed and sorted first.
      conditions.push(sql<SqlBool>`exists (select 1 from server_search ws where ws.server_id = servers.id
        and ${textMatch(dialect, filter.search, 'ws')})`);
    } else if (filter.search !== undefined) {
      const matches = eb
        .selectFrom('server_search')
        .select('server_search.server_id')
        .where(searchDocuments(dialect, filter.search, filter, 'server_search'));
      // PostgreSQL: `offset 0` keeps the matches a list of their own (a planner fence). Otherwise the planner
      // walks the sort index testing each row's document, which it costs as an operator call while it reads the
      // document out of line (migration 0039: ~8 buffers a row): `crop lamps`, 847 matches among 180k
      // servers, walked 8,513 rows in 54 ms against 9–24 ms probing the matches.
      conditions.push(eb('servers.id', 'in', dialect === 'postgres' ? matches.offset(0) : matches));
    }
    const gathered = filter.search !== undefined && plan !== 'scan';
    for (const list of catalogListsOf(gathered ? besideDocuments(dialect, filter) : filter)) {
      conditions.push(
        plan === 'walk'
          ? linkProbe(list, 'servers.id')
          : // `in`, not a correlated `exists`: the planner may then start from the links of the asked ids (a
            // scan's search matches many servers, a list may match few).
            eb('servers.id', 'in', linkedServers(list)),
      );
    }
    return eb.and(conditions);
  };
}

/**
 * A page of APPROVED servers, filtered and sorted; `relevance` here is the rank order (a search's relevance
 * pages are server-relevance.repo.ts's).
 */
export async function listApprovedServers(
  db: Kysely<DB>,
  dialect: DialectName,
  filter: ServerFilter,
  sort: ServerSort,
  page: { limit: number; offset: number; plan?: ServerPlan },
): Promise<ServerCardRow[]> {
  const { limit, offset } = page;
  const order = sort === 'relevance' ? 'rank' : sort;
  if (isUnfiltered(filter)) return APPROVED_PAGES[order](db, dialect, limit, offset);
  const ids = sorted(cards(db, dialect).where(filterConditions(dialect, filter, page.plan)), order)
    .clearSelect()
    .select('servers.id')
    .limit(limit)
    .offset(offset);
  // A gathered search reads its matches from the GIN index, not by testing every document (index-plans.ts).
  const gathered = filter.search !== undefined && page.plan !== 'scan';
  return cardsOf(db, dialect, await pageIds(gathered, db, dialect, ids));
}

/** A page's ids, read with the GIN index when `matches` (index-plans.ts). */
async function pageIds(
  matches: boolean,
  db: Kysely<DB>,
  dialect: DialectName,
  query: Compilable<{ id: string }>,
): Promise<Array<{ id: string }>> {
  const { rows } = await withIndexPlansIf(matches, db, dialect, (read) => read.executeQuery(query));
  return rows;
}

/**
 * The cards of a page of ids, in that order. A filtered page picks its ids first and only then reads the cards:
 * SQLite computes a row's select list (the tags and categories subqueries) before sorting, so a one-step query
 * would compute them for every match, not for the page.
 */
export async function cardsOf(
  db: Kysely<DB>,
  dialect: DialectName,
  page: ReadonlyArray<{ id: string }>,
): Promise<ServerCardRow[]> {
  if (page.length === 0) return [];
  const rows = (await cards(db, dialect)
    .where(
      'servers.id',
      'in',
      page.map((row) => row.id),
    )
    .execute()) as ServerCardRow[];
  const byId = new Map(rows.map((row) => [row.id, row]));
  return page.flatMap((row) => byId.get(row.id) ?? []);
}

/**
 * The number of APPROVED servers matching a filter (only asked for filtered lists), in time proportional to the
 * matches: the full-text match count for a search alone (only APPROVED servers have a document), the maintained
 * usage count for one tag or one category alone (exact), otherwise a count driven by the matches or the links.
 * Counts stop at SEARCH_LIMITS.countCap, as the resources' do: past it the total is that lower bound.
 */
export async function countApprovedServers(
  db: Executor,
  dialect: DialectName,
  filter: ServerFilter,
): Promise<CappedTotal> {
  const cap = SEARCH_LIMITS.countCap;
  const tagIds = [...new Set(filter.tagIds ?? [])];
  const categoryIds = [...new Set(filter.categoryIds ?? [])];
  if (filter.search !== undefined && tagIds.length + categoryIds.length === 0) {
    return countMatchesUpTo(db, dialect, SERVER_INDEX, filter.search, cap);
  }
  if (filter.search === undefined && tagIds.length + categoryIds.length === 1) {
    const row =
      tagIds.length === 1
        ? await db
            .selectFrom('server_tags')
            .select('usage_count')
            .where('id', '=', tagIds[0]!)
            .executeTakeFirst()
        : await db
            .selectFrom('server_categories')
            .select('usage_count')
            .where('id', '=', categoryIds[0]!)
            .executeTakeFirst();
    return { total: Number(row?.usage_count ?? 0), exact: true };
  }
  if (filter.search !== undefined) return countDocumentsLinked(db, dialect, filter.search, filter, cap);
  const matches = db
    .selectFrom('servers')
    .select(sql.lit(1).as('one'))
    .where(filterConditions(dialect, filter))
    .limit(cap + 1);
  const row = await db
    .selectFrom(matches.as('m'))
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return cappedTotal(Number(row.count), cap);
}

/**
 * The count of a search with catalog lists, up to `cap`: its documents with every list's terms (PostgreSQL) or
 * linked to every list (SQLite), no server row read (only APPROVED servers have a document), under index plans
 * (index-plans.ts). Joined to `servers` for their status, a common word with a tag at 1M resources (180k
 * servers; 5,331 matches) hashed every APPROVED server's id: 138–213 ms, against 52 linked; with the terms,
 * 100 searches with a tag on 32k servers took p50 / p90 17.6 / 41 ms a request, against 34.7 / 168 linked.
 */
async function countDocumentsLinked(
  db: Executor,
  dialect: DialectName,
  search: SearchQuery,
  filter: ServerFilter,
  cap: number,
): Promise<CappedTotal> {
  const conditions = [
    searchDocuments(dialect, search, filter, 'd'),
    ...catalogListsOf(besideDocuments(dialect, filter)).map(
      (list) => sql<SqlBool>`d.server_id in ${linkedServers(list)}`,
    ),
  ];
  const count = sql<{ count: string | number }>`select count(*) as count from (select 1
    from ${sql.table(matchedDocuments(dialect))} d where ${sql.join(conditions, sql` and `)} limit ${cap + 1}) m`;
  const { rows } = await withIndexPlans(db, dialect, (read) => count.execute(read));
  return cappedTotal(Number(rows[0]?.count ?? 0), cap);
}
