// Resource lists: the public catalogue, yours, a user's, a team's, and the moderation queues. Totals come from
// maintained counters where one answers the question (DESIGN §5); owner lists count the matching rows over
// indexed columns; searches and catalog filters follow search/resource-totals.ts.
import { readCounter } from '../../core/db/counters.js';
import type { Kysely } from 'kysely';
import type { Actor } from '../../core/auth/authenticate.js';
import type { ResourceAccess } from '../../core/auth/resource-access.js';
import type { DialectName } from '../../core/db/database.js';
import type { DB, ResourceStatus, ResourceType } from '../../core/db/schema.js';
import { notFound } from '../../core/http/errors.js';
import type { MediaUrls } from '../../core/media-urls.js';
import { findTeamById } from '../teams/teams.repo.js';
import { findUserById } from '../users/users.repo.js';
import { DEFAULT_WORK_MEM_MB } from '../../config-database.js';
import { facetsFromCounters, facetsOfMatches } from '../search/resource-facets.js';
import {
  hashedLinksLimit,
  hashedWalkRows,
  listedMatchesPlan,
  scanPays,
  searchPagePlan,
  walkPays,
} from '../search/plan-costs.js';
import { searchWindow } from '../search/result-window.js';
import type { FacetRequest, Facets } from '../search/resource-facets.js';
import {
  catalogCountsFirst,
  catalogListsPlan,
  countMatches,
  listedCatalogFilter,
  withDocuments,
  withFacetTerms,
} from '../search/resource-totals.js';
import { countedWithFacets } from '../search/counted-facets.js';
import type { Total } from '../search/resource-totals.js';
import { correctedSearch } from '../search/name-words.js';
import { trigramIndexSchema } from '../search/resource-trigram.js';
import { parseSearch } from '../search/text.js';
import type { SearchQuery } from '../search/text.js';
import { resolveCategoryFilter, resolveGameVersionFilter, resolveTagFilter } from './resource-links.repo.js';
import { documentsAnswer, isSearchAlone } from './catalog-lists.js';
import { relevancePage } from './relevance-pages.js';
import { listByTagLinks, sortedTagLinks } from './tag-link-pages.js';
import { countResources, listApprovedPage, listResourceViews } from './resource-views.repo.js';
import type { ResourceFilter, ResourceOrder, ResourceViewRow } from './resource-views.repo.js';
import type { MatchPlan } from '../search/resource-match.js';
import { toResourceListItem } from './resources.mapper.js';
import { approvedTypeCounter, statusCounter } from './resources.repo.js';
import type { ResourceSort } from './resources.schemas.js';
import type {
  CatalogueMeta,
  CataloguePage,
  Page,
  PublicListQuery,
  ResourcePage,
} from './resource-lists.types.js';

/** Without a search, relevance is popularity, and downloads is the indexed order that stands for it. */
export const SORT_ORDERS: Record<ResourceSort, ResourceOrder> = {
  date: { column: 'created_at', direction: 'desc' },
  updated: { column: 'updated_at', direction: 'desc' },
  downloads: { column: 'downloads', direction: 'desc' },
  likes: { column: 'like_count', direction: 'desc' },
  name: { column: 'name_key', direction: 'asc' },
  relevance: { column: 'downloads', direction: 'desc' },
};

/** Typo tolerance (PostgreSQL) is tried for searches of at most this many words that find nothing. */
const SIMILAR_MAX_WORDS = 2;
const NEWEST_FIRST = SORT_ORDERS.date;
/** The moderation queue: first come, first served. */
const OLDEST_FIRST: ResourceOrder = { column: 'created_at', direction: 'asc' };

const pageOf = ({ page, limit }: Page) => ({ page, limit, offset: (page - 1) * limit });

export type ResourceListsService = ReturnType<typeof createResourceListsService>;

export function createResourceListsService(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  urls: MediaUrls;
  resourceAccess: ResourceAccess;
  /** Told once when typo tolerance is unavailable on PostgreSQL. */
  log?: (message: string) => void;
  /** PostgreSQL: the connections' work_mem (MB), which bounds the link ids a page hashes (hashedLinksLimit). */
  workMemMb?: number;
}) {
  const { db, dialect, urls, resourceAccess } = deps;
  const hashLimit = hashedLinksLimit(dialect, deps.workMemMb ?? DEFAULT_WORK_MEM_MB);
  let trigram: Promise<string | null> | undefined;
  /** The pg_trgm schema when typo tolerance can run here (looked up once). */
  function trigramSchema(): Promise<string | null> {
    trigram ??= trigramIndexSchema(db as unknown as Kysely<unknown>).then(
      (schema) => {
        if (schema === null)
          deps.log?.('search: pg_trgm or its name-word index is missing; no typo tolerance');
        return schema;
      },
      () => null,
    );
    return trigram;
  }

  function respond(rows: ResourceViewRow[], total: number, page: Page): ResourcePage {
    const { offset } = pageOf(page);
    return {
      resources: rows.map((row) => toResourceListItem(row, urls)),
      total,
      meta: { total, limit: page.limit, offset, page: page.page },
    };
  }

  async function filteredPage(
    filter: ResourceFilter,
    order: ResourceOrder,
    page: Page,
  ): Promise<ResourcePage> {
    const { limit, offset } = pageOf(page);
    const [rows, total] = await Promise.all([
      listResourceViews(db, dialect, filter, order, limit, offset),
      countResources(db, dialect, filter),
    ]);
    return respond(rows, total, page);
  }

  function catalogue(
    rows: ResourceViewRow[],
    total: Total,
    page: Page,
    facets?: { facets: Facets; exact: boolean },
  ): CataloguePage {
    const meta: CatalogueMeta = {
      total: total.total,
      limit: page.limit,
      offset: pageOf(page).offset,
      page: page.page,
      totalExact: total.exact,
    };
    if (facets !== undefined) Object.assign(meta, { facets: facets.facets, facetsExact: facets.exact });
    return { resources: rows.map((row) => toResourceListItem(row, urls)), total: total.total, meta };
  }

  /** No search, no catalog filter: the prepared page per sort, counters for the total and the facets. */
  async function plainPage(
    type: ResourceType | undefined,
    sort: ResourceSort,
    page: Page,
    facets: FacetRequest[],
  ): Promise<CataloguePage> {
    const { limit, offset } = pageOf(page);
    const counter = type === undefined ? statusCounter('APPROVED') : approvedTypeCounter(type);
    const [rows, total, counted] = await Promise.all([
      listApprovedPage(db, dialect, SORT_ORDERS[sort], type, limit, offset),
      readCounter(db, dialect, counter),
      facets.length === 0 ? undefined : facetsFromCounters(db, facets, type),
    ]);
    const facetPart = counted === undefined ? undefined : { facets: counted, exact: true };
    return catalogue(rows, { total, exact: true }, page, facetPart);
  }

  /** The answer when nothing matches: no rows, a total of 0, every asked facet empty. */
  function nothingFound(page: Page, facets: FacetRequest[]): CataloguePage {
    const empty = facets.length === 0 ? undefined : Object.fromEntries(facets.map((name) => [name, {}]));
    return catalogue([], { total: 0, exact: true }, page, empty && { facets: empty, exact: true });
  }

  /** A search or catalog filters: the page, and the total and facets over every match. */
  async function matchedPage(
    asked: ResourceFilter,
    sort: ResourceSort,
    page: Page,
    facets: FacetRequest[],
    exec: Kysely<DB> = db,
  ): Promise<CataloguePage> {
    const filter = await withFacetTerms(exec, dialect, asked);
    const match = filter.match;
    // A text search's pages stop at its result window (search/result-window.ts).
    const window = match === undefined ? pageOf(page) : searchWindow(pageOf(page));
    const { limit, offset } = window ?? pageOf(page);
    // One tag alone: its page from its own link rows in the list's order (tag-link-pages.ts), never planned.
    const tagId = sortedTagLinks(filter);
    const listRows = async (planned: ResourceFilter) => {
      if (window === undefined) return [];
      if (tagId !== undefined) return listByTagLinks(exec, tagId, SORT_ORDERS[sort], limit, offset);
      return sort !== 'relevance' || match === undefined
        ? listResourceViews(exec, dialect, planned, SORT_ORDERS[sort], limit, offset)
        : relevancePage(exec, dialect, planned, match, limit, offset);
    };
    // The rows a walk or scan reads are the type's when there is one (its (type, status, column) index).
    const walked = () =>
      readCounter(exec, dialect, filter.type ? approvedTypeCounter(filter.type) : statusCounter('APPROVED'));
    // A hashed walk of listed matches reads a bounded number of rows (ResourceFilter.walk).
    const boundedWalk = (listed: boolean, plan: MatchPlan | undefined, total: Total) =>
      listed && plan === 'hashed' ? hashedWalkRows(total.total, offset + limit, walked) : undefined;
    // PostgreSQL: a page of the matches `total` counted, listed by it or not (`read.match.documents`).
    const countedPage = async (read: ResourceFilter, total: Total) => {
      const listed = read.match?.documents !== undefined;
      const plan = await searchPagePlan(total, listed, offset + limit, walked);
      return listRows({ ...read, plan, walk: await boundedWalk(listed, plan, total) });
    };
    if (dialect === 'sqlite') {
      // SQLite runs one statement at a time anyway: count first and let the count choose the page's plan.
      const gathered: ResourceFilter = { ...filter, plan: 'gather' };
      const total = await countMatches(exec, dialect, gathered);
      // Relevance scores its matches (gathered); without a search it is the downloads order, which can walk.
      const scored = sort === 'relevance' && match !== undefined;
      const read = withDocuments(gathered, total);
      // A search whose count listed its documents (read): the sort index walked against them, however, or they
      // gathered (listedMatchesPlan). A scan reads each walked row's document text (12–15 µs at 1M): it pays only
      // when the documents would have to be read from FTS5 first (a search counted past the cap).
      const unlistedPlan = async () => {
        if (tagId !== undefined) return undefined;
        const tests = !scored && match !== undefined && (await scanPays(total, offset + limit, walked));
        const walk = !scored && (!total.exact || (await walkPays(total.total, offset + limit, walked)));
        const hashed = await catalogListsPlan(exec, dialect, filter, offset + limit, walked, hashLimit);
        return hashed ?? (tests ? 'scan' : walk ? 'walk' : 'gather');
      };
      const listed = !scored && read.match?.documents !== undefined;
      const plan = listed
        ? await listedMatchesPlan(dialect, total.total, offset + limit, walked)
        : await unlistedPlan();
      const rows = await listRows({ ...read, plan, walk: await boundedWalk(listed, plan, total) });
      if (facets.length === 0) return catalogue(rows, total, page);
      const scan = await facetsOfMatches(exec, dialect, read, facets);
      return catalogue(rows, total, page, { facets: scan.facets, exact: scan.exact });
    }
    if ((isSearchAlone(filter) || documentsAnswer(dialect, filter)) && sort !== 'relevance') {
      // PostgreSQL cannot tell from its statistics how many documents a word matches, and walks the sort index
      // looking for a rare or absent word's: a search alone, or one whose filters the documents answer (facet
      // terms), counts first (GIN, in proportion to the matches, capped), answers none without listing, and
      // lists few by their ids. (With other filters the ids would be every match of the search, and relevance
      // gathers anyway: both keep counting beside the list.)
      // PostgreSQL counts the facets in the same read of the matches (search/counted-facets.ts).
      const counted =
        dialect === 'postgres' && facets.length > 0
          ? await countedWithFacets(exec, filter, facets)
          : undefined;
      const total = counted?.total ?? (await countMatches(exec, dialect, filter));
      if (total.exact && total.total === 0) return nothingFound(page, facets);
      // The ids and facets read the documents the count read, when it read them all.
      const read = withDocuments(filter, total);
      const [list, scan] = await Promise.all([
        countedPage(read, total),
        counted?.facets ?? (facets.length === 0 ? undefined : facetsOfMatches(exec, dialect, read, facets)),
      ]);
      return catalogue(list, total, page, scan && { facets: scan.facets, exact: scan.exact });
    }
    // PostgreSQL from here.
    if (facets.length === 0 && catalogCountsFirst(dialect, filter)) {
      const total = await countMatches(exec, dialect, filter);
      if (total.exact && total.total === 0) return nothingFound(page, facets);
      const read = listedCatalogFilter(filter, total);
      return catalogue(await (read ? countedPage(read, total) : listRows(filter)), total, page);
    }
    const plan =
      tagId === undefined
        ? await catalogListsPlan(exec, dialect, filter, offset + limit, walked, hashLimit)
        : undefined;
    const listed = plan === undefined ? filter : { ...filter, plan };
    if (facets.length === 0) {
      // The count runs beside the page: it lists no documents, which nothing would read.
      const [list, total] = await Promise.all([
        listRows(listed),
        countMatches(exec, dialect, filter, undefined, false),
      ]);
      return catalogue(list, total, page);
    }
    // The facet scan sees every match up to its limit: when it saw them all, it also gives the exact total.
    const [list, scan] = await Promise.all([
      listRows(listed),
      facetsOfMatches(exec, dialect, filter, facets),
    ]);
    const total = scan.exact
      ? { total: scan.matched, exact: true }
      : await countMatches(exec, dialect, filter, undefined, false);
    return catalogue(list, total, page, { facets: scan.facets, exact: scan.exact });
  }

  async function similarAllowed(search: SearchQuery): Promise<boolean> {
    if (dialect !== 'postgres' || search.terms.length > SIMILAR_MAX_WORDS) return false;
    return (await trigramSchema()) !== null;
  }

  /** Catalog filter values that name nothing match no resource. */
  async function resolveFilters(query: PublicListQuery): Promise<ResourceFilter | null> {
    const filter: ResourceFilter = { status: 'APPROVED', type: query.type };
    if (query.tags !== undefined && query.tags.length > 0) {
      filter.tagIds = await resolveTagFilter(db, query.tags);
      if (filter.tagIds.length === 0) return null;
    }
    if (query.categories !== undefined && query.categories.length > 0) {
      filter.categoryIds = await resolveCategoryFilter(db, query.categories, query.type);
      if (filter.categoryIds.length === 0) return null;
    }
    if (query.versions !== undefined && query.versions.length > 0) {
      filter.gameVersionIds = await resolveGameVersionFilter(db, query.versions);
      if (filter.gameVersionIds.length === 0) return null;
    }
    return filter;
  }

  return {
    /** GET /resources: APPROVED only, whoever asks. */
    async listPublic(query: PublicListQuery): Promise<CataloguePage> {
      const page = { page: query.page ?? 1, limit: query.limit ?? 20 };
      const sort = query.sortBy ?? 'date';
      const facets = [...new Set(query.facets ?? [])];
      const search = query.search === undefined ? null : parseSearch(query.search);
      const filter = await resolveFilters(query);
      if (filter === null) return nothingFound(page, facets);
      if (search !== null) filter.match = { query: search };
      const plain =
        filter.match === undefined &&
        filter.tagIds === undefined &&
        filter.categoryIds === undefined &&
        filter.gameVersionIds === undefined;
      if (plain) return plainPage(query.type, sort, page, facets);
      const found = await matchedPage(filter, sort, page, facets);
      if (found.meta.total > 0 || search === null || !(await similarAllowed(search))) return found;
      const corrected = await correctedSearch(db, (await trigramSchema())!, search);
      if (corrected === null) return found;
      const fallback = await matchedPage({ ...filter, match: { query: corrected } }, sort, page, facets);
      if (fallback.meta.total === 0) return found;
      fallback.meta.similar = true;
      return fallback;
    },

    /** Resources you own yourself, in every status. */
    listMine: (actor: Actor, page: Page) =>
      filteredPage({ owner: { type: 'USER', id: actor.userId } }, NEWEST_FIRST, page),

    /** A user's own resources: APPROVED ones, plus what the caller may see of the others. */
    async listOfUser(actor: Actor | null, userId: string, page: Page): Promise<ResourcePage> {
      if ((await findUserById(db, userId)) === undefined) throw notFound('User');
      const filter = {
        owner: { type: 'USER' as const, id: userId },
        visibility: resourceAccess.listVisibility(actor),
      };
      return filteredPage(filter, NEWEST_FIRST, page);
    },

    /** A team's resources: APPROVED ones for the public, all of them for its members and moderators. */
    async listOfTeam(actor: Actor | null, teamId: string, page: Page): Promise<ResourcePage> {
      if ((await findTeamById(db, teamId)) === undefined) throw notFound('Team');
      const filter = {
        owner: { type: 'TEAM' as const, id: teamId },
        visibility: resourceAccess.listVisibility(actor),
      };
      return filteredPage(filter, NEWEST_FIRST, page);
    },

    /** Moderation: one status, its total from the status counter; PENDING oldest first, others newest first. */
    async listByStatus(status: ResourceStatus, page: Page): Promise<ResourcePage> {
      const { limit, offset } = pageOf(page);
      const order = status === 'PENDING' ? OLDEST_FIRST : NEWEST_FIRST;
      const [rows, total] = await Promise.all([
        listResourceViews(db, dialect, { status }, order, limit, offset),
        readCounter(db, dialect, statusCounter(status)),
      ]);
      return respond(rows, total, page);
    },
  };
}
