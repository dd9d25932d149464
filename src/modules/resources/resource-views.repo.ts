// Resources as the API shows them, each in one query: the row with its catalog names (catalog-refs.repo.ts) and
// its owner (user or team, joined). The hot reads (by slug, by id, the default public list) are prepared once
// per dialect (DESIGN §5).
import { sql } from 'kysely';
import type { Expression, ExpressionBuilder, Kysely, RawBuilder, SqlBool, Transaction } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import { prepared } from '../../core/db/prepared.js';
import type { DB, ResourceStatus, ResourceType } from '../../core/db/schema.js';
import {
  catalogFacetTerms,
  catalogLists,
  filterFacetTerms,
  gatheredFromLinks,
  hashedLinkTest,
  linkIds,
  linkProbe,
} from './catalog-lists.js';
import { withIndexPlansIf } from '../search/index-plans.js';
import { facetTermsMatch, inHashedMatches, matchCondition } from '../search/resource-match.js';
import { popularity, relevanceOrder } from '../search/document-text.js';
import type { MatchPlan, SearchMatch } from '../search/resource-match.js';

type Executor = Kysely<DB> | Transaction<DB>;

export interface ResourceViewRow {
  id: string;
  name: string;
  slug: string;
  short_description: string;
  description?: string;
  type: ResourceType;
  status: ResourceStatus;
  owner_type: 'USER' | 'TEAM';
  owner_id: string;
  icon_key: string | null;
  banner_key: string | null;
  downloads: number;
  like_count: number;
  favorite_count: number;
  created_at: string;
  updated_at: string;
  owner_username: string | null;
  owner_display_name: string | null;
  owner_image_key: string | null;
  owner_team_name: string | null;
  owner_team_slug: string | null;
  owner_team_logo_key: string | null;
  /** JSON: read with parseCatalogRefs. */
  catalog_refs: string;
}

/** `resources` joined to its owner: the user (owner_user) or the team (owner_team). Lists and feeds build on it. */
export function resourcesWithOwner(db: Executor) {
  return db
    .selectFrom('resources')
    .leftJoin('users as owner_user', (join) =>
      join.onRef('owner_user.id', '=', 'resources.owner_id').on('resources.owner_type', '=', 'USER'),
    )
    .leftJoin('teams as owner_team', (join) =>
      join.onRef('owner_team.id', '=', 'resources.owner_id').on('resources.owner_type', '=', 'TEAM'),
    );
}

export function viewQuery(db: Executor) {
  return resourcesWithOwner(db).select([
    'resources.id',
    'resources.name',
    'resources.slug',
    'resources.short_description',
    'resources.type',
    'resources.status',
    'resources.owner_type',
    'resources.owner_id',
    'resources.icon_key',
    'resources.banner_key',
    'resources.downloads',
    'resources.like_count',
    'resources.favorite_count',
    'resources.created_at',
    'resources.updated_at',
    'owner_user.username as owner_username',
    'owner_user.display_name as owner_display_name',
    'owner_user.image_key as owner_image_key',
    'owner_team.name as owner_team_name',
    'owner_team.slug as owner_team_slug',
    'owner_team.logo_key as owner_team_logo_key',
    'resources.catalog_refs',
  ]);
}

const fullView = (db: Executor) => viewQuery(db).select('resources.description');

const bySlug = prepared<ResourceViewRow, [string]>(1, (db, _dialect, slug) =>
  fullView(db).where('resources.slug', '=', slug!),
);
const byId = prepared<ResourceViewRow, [string]>(1, (db, _dialect, id) =>
  fullView(db).where('resources.id', '=', id!),
);

export async function findResourceView(
  db: Executor,
  dialect: DialectName,
  by: { id: string } | { slug: string },
): Promise<ResourceViewRow | undefined> {
  const rows = 'id' in by ? await byId(db, dialect, by.id) : await bySlug(db, dialect, by.slug);
  return rows[0];
}

// ---------------------------------------------------------------------------------------------------------------
// Lists

export type SortColumn = 'created_at' | 'updated_at' | 'downloads' | 'like_count' | 'name_key';

export interface ResourceOrder {
  column: SortColumn;
  direction: 'asc' | 'desc';
}

export interface ResourceFilter {
  status?: ResourceStatus;
  /** What the caller may see (core/auth/resource-access.ts listVisibility). */
  visibility?: ((eb: ExpressionBuilder<DB, 'resources'>) => Expression<SqlBool>) | null;
  type?: ResourceType;
  owner?: { type: 'USER' | 'TEAM'; id: string };
  /** A search: the resources its documents match (search/resource-match.ts). */
  match?: SearchMatch;
  /**
   * SQLite's plan for a search or catalog filter: 'walk' a sort index and probe the matches (many matches), or
   * 'gather' the matches (from the full-text index, the link tables) and sort them (few); counts always gather.
   * Unset: the planner chooses (without statistics SQLite walks a status index, a whole-table walk).
   * PostgreSQL: 'ids' reads a search's few matches' ids first (search/resource-match.ts matchCondition); with
   * one catalog list and no search (search/resource-totals.ts catalogListsPlan) 'gather' reads the page's ids
   * first however the planner finds them. Both, one catalog list and no search: 'hashed' walks the sort index
   * testing rows against the list's link ids read once (catalog-lists.ts hashedLinkTest).
   */
  plan?: MatchPlan;
  /**
   * Plan 'hashed' of a search's listed matches (SearchMatch.documents): `rows`, the most rows of the
   * sort index the walk reads before the page is gathered instead, and `listed`, how many ids were listed
   * (search/plan-costs.ts hashedWalkRows).
   */
  walk?: { rows: number; listed: number };
  /**
   * With a search: the type and catalog lists are read as the documents' facet terms in the search's full-text
   * scan (migrations 0030, 0031), not from the link tables; search/resource-totals.ts withFacetTerms decides.
   */
  facetTerms?: boolean;
  /** Already resolved to IDs; a resource matches when it has any of them. */
  tagIds?: string[];
  categoryIds?: string[];
  gameVersionIds?: string[];
}

/** The filter as one condition on `resources`, shared by the list, its count and the feeds. */
export function resourceFilterCondition(
  eb: ExpressionBuilder<DB, 'resources'>,
  dialect: DialectName,
  filter: ResourceFilter,
): Expression<SqlBool> {
  const conditions: Array<Expression<SqlBool>> = [];
  // Gathering: the status must not lead SQLite into walking a sort index (a unary + keeps it off the index).
  const gather = filter.plan === 'gather' && dialect === 'sqlite';
  // Walking: each row of the sort index is checked against its own link rows (the link tables' primary keys
  // start with resource_id), instead of SQLite first listing every linked id (measured at 100k, the most used
  // tag, page 8 by date: 74 ms → 1 ms). Gathering, the matches drive: a search's (a probe per match of a common
  // word cost more: 68 → 109 ms p50 at 100k), with the lists as its facet terms or not; without a search, on
  // SQLite, several lists' facet terms alone (catalogFacetTerms), which FTS5 intersects, where one list's link rows
  // drove and each was probed for the others; one list's own link rows (gatheredFromLinks).
  const probe = (filter.plan === 'walk' || filter.plan === 'scan') && dialect === 'sqlite';
  // Each list's link ids read once, each walked row tested against them (hashedLinkTest).
  const hashed = filter.plan === 'hashed';
  const lists = catalogLists(filter);
  const listTerms = gather && !gatheredFromLinks(filter) ? catalogFacetTerms(dialect, filter) : undefined;
  if (filter.status !== undefined) {
    conditions.push(
      gather
        ? sql<SqlBool>`+resources.status = ${filter.status}`
        : eb('resources.status', '=', filter.status),
    );
  }
  if (filter.visibility) conditions.push(filter.visibility(eb));
  if (filter.type !== undefined) {
    conditions.push(
      gather ? sql<SqlBool>`+resources.type = ${filter.type}` : eb('resources.type', '=', filter.type),
    );
  }
  if (filter.owner !== undefined) {
    conditions.push(eb('resources.owner_type', '=', filter.owner.type));
    conditions.push(eb('resources.owner_id', '=', filter.owner.id));
  }
  const facets = filterFacetTerms(dialect, filter) ?? listTerms;
  if (filter.match !== undefined) {
    conditions.push(
      matchCondition(dialect, facets === undefined ? filter.match : { ...filter.match, facets }, filter.plan),
    );
  } else if (listTerms !== undefined) {
    conditions.push(matchCondition(dialect, facetTermsMatch(listTerms), filter.plan));
  }
  // (Left to the index when it has them.)
  for (const list of facets === undefined ? lists : []) {
    conditions.push(
      probe
        ? sql<SqlBool>`exists (${linkProbe(list)})`
        : hashed
          ? hashedLinkTest(eb, dialect, list)
          : eb('resources.id', 'in', linkIds(eb, list)),
    );
  }
  return eb.and(conditions);
}

/** One key of a page's order: an expression over `resources` (and `s`, a scored page's documents). */
type PageKey = [key: RawBuilder<unknown>, direction: 'asc' | 'desc'];

/**
 * The views of one page of a filter's matches. Gathered matches (plans 'ids' and 'gather', and every scored
 * page) are sorted whole: then the page's ids come first (the filter, the order, the page) and only those rows
 * are joined to their owners and ordered again. PostgreSQL cannot tell how many ids a gathered match holds and
 * joined every match's owner before sorting: 2,715 matches by date at 1M, 42–56 → 17–21 ms. A walk of a sort
 * index stops at the page anyway, and there PostgreSQL's nested statement measured slower (tag by date at 1M,
 * 34–37 → 43–45 ms, 3 ms of it planning), but for its hashed walk, index-only when nested; SQLite's walks that
 * test rows are nested too (testedWalk).
 * `scored`: the order reads the matches' documents (`s`).
 */
async function pageOfViews(
  db: Executor,
  dialect: DialectName,
  filter: ResourceFilter,
  keys: PageKey[],
  limit: number,
  offset: number,
  scored = false,
): Promise<ResourceViewRow[]> {
  const where = (eb: ExpressionBuilder<DB, 'resources'>) => resourceFilterCondition(eb, dialect, filter);
  // PostgreSQL's hashed walk (hashedLinkTest) reads the ids from the sort index alone, never fetching the rows
  // it passes over (in one statement it fetched each: a tag on 0.4% of the resources, page 8 by name, 185 → 11 ms).
  const hashedWalk = filter.plan === 'hashed' && dialect === 'postgres';
  // SQLite's walks that test each row they pass (a link or document probe, or the document's text) join the
  // owners of the page's rows only: in one statement the joins ran for every row walked (at 1M, a relevance top
  // tier walked by popularity testing names, 5,452 rows for a page: 73–119 → 23–47 ms; a tag by likes, page 50:
  // 75 → 36 ms). A walk that tests nothing, or SQLite's hashed one, measured the same or slower nested.
  const testedWalk = dialect === 'sqlite' && (filter.plan === 'walk' || filter.plan === 'scan');
  const ordered = <Q extends { orderBy(key: RawBuilder<unknown>, direction: 'asc' | 'desc'): Q }>(query: Q) =>
    keys.reduce((sorted, [key, direction]) => sorted.orderBy(key, direction), query);
  const read = (executor: Executor) => {
    let page = viewQuery(executor);
    if (scored) page = page.innerJoin('resource_search as s', 's.resource_id', 'resources.id');
    if (walk !== undefined)
      return ordered(page).where('resources.id', 'in', boundedWalk(executor, walk)).execute();
    if (!(scored || filter.plan === 'ids' || filter.plan === 'gather' || hashedWalk || testedWalk)) {
      const walked = page.where((eb) => where(eb as unknown as ExpressionBuilder<DB, 'resources'>));
      return ordered(walked).limit(limit).offset(offset).execute();
    }
    let ids = executor.selectFrom('resources').select('resources.id').where(where);
    if (scored) ids = ids.innerJoin('resource_search as s', 's.resource_id', 'resources.id');
    return ordered(page).where('resources.id', 'in', ordered(ids).limit(limit).offset(offset)).execute();
  };
  // A hashed walk of a search's listed matches (filter.walk): the sort index's first walk.rows rows of the type
  // (the documents hold the rest of the filter), then those of them among the listed ids. Unbounded, matches
  // clustered at the far end of the order walked the whole index (3,000 of the oldest resources by date at 1M,
  // PostgreSQL: 388 ms warm, 9.9 s cold); when the bound leaves the page short, it is gathered.
  const walk = filter.plan === 'hashed' && filter.match?.documents !== undefined ? filter.walk : undefined;
  const boundedWalk = (executor: Executor, { rows }: { rows: number }) => {
    const scope: ResourceFilter = { status: filter.status, type: filter.type };
    const walked = ordered(
      executor
        .selectFrom('resources')
        .select('resources.id')
        .select(keys.map(([key], i) => key.as(`k${i}`)))
        .where((eb) => resourceFilterCondition(eb, dialect, scope)),
    ).limit(rows);
    const hits = executor
      .selectFrom(walked.as('w'))
      .select('w.id')
      .where(inHashedMatches(dialect, 'w.id', filter.match!));
    const inOrder = keys.reduce((q, [, direction], i) => q.orderBy(sql.ref(`w.k${i}`), direction), hits);
    return inOrder.limit(limit).offset(offset);
  };
  // A search's matches are read through the documents' GIN index, never by a scan testing each document
  // (search/index-plans.ts; on small tables the planner chose one: 37 ms for 5 matches at 10k).
  const rows = await withIndexPlansIf(filter.match !== undefined, db, dialect, read);
  if (walk === undefined || rows.length >= Math.min(limit, walk.listed - offset)) return rows;
  const gathered: MatchPlan = dialect === 'postgres' ? 'ids' : 'gather';
  return pageOfViews(
    db,
    dialect,
    { ...filter, plan: gathered, walk: undefined },
    keys,
    limit,
    offset,
    scored,
  );
}

const column = (name: string) => sql.ref(`resources.${name}`);

export function listResourceViews(
  db: Executor,
  dialect: DialectName,
  filter: ResourceFilter,
  order: ResourceOrder,
  limit: number,
  offset: number,
): Promise<ResourceViewRow[]> {
  const keys: PageKey[] = [
    [column(order.column), order.direction],
    [column('id'), order.direction],
  ];
  return pageOfViews(db, dialect, filter, keys, limit, offset);
}

/**
 * A page of a search's matches by relevance (search/resource-match.ts), the id breaking ties. Every match of
 * `filter.match` is scored, so the cost grows with their number (the caller narrows it with nameTiers).
 */
export function listByRelevance(
  db: Executor,
  dialect: DialectName,
  filter: ResourceFilter & { match: SearchMatch },
  limit: number,
  offset: number,
): Promise<ResourceViewRow[]> {
  const keys = relevanceOrder(dialect, filter.match).map((key): PageKey => [key, 'desc']);
  return pageOfViews(db, dialect, filter, [...keys, [column('id'), 'desc']], limit, offset, true);
}

/** A filtered count: used only where no maintained counter answers (owner lists, filters, searches). */
export async function countResources(
  db: Executor,
  dialect: DialectName,
  filter: ResourceFilter,
): Promise<number> {
  const row = await db
    .selectFrom('resources')
    .where((eb) => resourceFilterCondition(eb, dialect, filter))
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

const approvedPages = new Map<string, ReturnType<typeof approvedPage>>();

/**
 * A page of every APPROVED resource (of a type): its ids picked from the sort index first, then their views.
 * Reading the views while skipping fetched each skipped row and its owner: at 1M, offset 400,000 of the mods by
 * downloads took 784 ms, its ids alone 40 ms.
 */
function approvedPage(order: ResourceOrder, typed: boolean) {
  return prepared<ResourceViewRow, unknown[]>(typed ? 3 : 2, (db, _dialect, ...args) => {
    const [limit, offset, type] = args as [string, string, string | undefined];
    let ids = db.selectFrom('resources').select('resources.id').where('resources.status', '=', 'APPROVED');
    if (type !== undefined) ids = ids.where('resources.type', '=', type as ResourceType);
    const page = ids
      .orderBy(`resources.${order.column}`, order.direction)
      .orderBy('resources.id', order.direction)
      .limit(limit as unknown as number)
      .offset(offset as unknown as number);
    return viewQuery(db)
      .where('resources.id', 'in', page)
      .orderBy(`resources.${order.column}`, order.direction)
      .orderBy('resources.id', order.direction);
  });
}

/** The public list without search or catalog filters: the common case, prepared per sort (and type). */
export async function listApprovedPage(
  db: Executor,
  dialect: DialectName,
  order: ResourceOrder,
  type: ResourceType | undefined,
  limit: number,
  offset: number,
): Promise<ResourceViewRow[]> {
  const key = `${order.column}:${order.direction}:${type !== undefined}`;
  let query = approvedPages.get(key);
  if (query === undefined) {
    query = approvedPage(order, type !== undefined);
    approvedPages.set(key, query);
  }
  return type === undefined ? query(db, dialect, limit, offset) : query(db, dialect, limit, offset, type);
}

/**
 * A page of matches that all have the same text score (search/resource-match.ts topTier) in relevance order:
 * popularity, then id. The order of the popularity index (migration 0028), so plan 'scan' reads a page of it.
 */
export function listByPopularity(
  db: Executor,
  dialect: DialectName,
  filter: ResourceFilter,
  limit: number,
  offset: number,
): Promise<ResourceViewRow[]> {
  const keys: PageKey[] = [
    [popularity(dialect), 'desc'],
    [column('id'), 'desc'],
  ];
  return pageOfViews(db, dialect, filter, keys, limit, offset);
}
