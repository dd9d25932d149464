// Resource lists: the public catalogue, yours, a user's, a team's, and the moderation queues. Totals come from
// maintained counters where one answers the question (DESIGN §5); owner lists and filtered searches count the
// matching rows over indexed columns.
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
import { resolveCategoryFilter, resolveGameVersionFilter, resolveTagFilter } from './resource-links.repo.js';
import { countResources, listApprovedPage, listResourceViews } from './resource-views.repo.js';
import type { ResourceFilter, ResourceOrder, ResourceViewRow } from './resource-views.repo.js';
import { toResourceListItem } from './resources.mapper.js';
import type { ResourceListItemView } from './resources.mapper.js';
import { approvedTypeCounter, statusCounter } from './resources.repo.js';
import type { ResourceSort } from './resources.schemas.js';

export interface Page {
  page: number;
  limit: number;
}

export interface ResourcePage {
  resources: ResourceListItemView[];
  total: number;
  meta: { total: number; limit: number; offset: number; page: number };
}

export interface PublicListQuery extends Partial<Page> {
  type?: ResourceType;
  search?: string;
  tags?: string[];
  categories?: string[];
  versions?: string[];
  sortBy?: ResourceSort;
}

export const SORT_ORDERS: Record<ResourceSort, ResourceOrder> = {
  date: { column: 'created_at', direction: 'desc' },
  updated: { column: 'updated_at', direction: 'desc' },
  downloads: { column: 'downloads', direction: 'desc' },
  likes: { column: 'like_count', direction: 'desc' },
  name: { column: 'name_key', direction: 'asc' },
};
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
}) {
  const { db, dialect, urls, resourceAccess } = deps;

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

  /** Catalog filter values that name nothing match no resource. */
  async function resolveFilters(query: PublicListQuery): Promise<ResourceFilter | null> {
    const filter: ResourceFilter = { status: 'APPROVED', type: query.type };
    const search = query.search?.trim();
    if (search !== undefined && search !== '') filter.search = search;
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
    async listPublic(query: PublicListQuery): Promise<ResourcePage> {
      const page = { page: query.page ?? 1, limit: query.limit ?? 20 };
      const order = SORT_ORDERS[query.sortBy ?? 'date'];
      const filter = await resolveFilters(query);
      if (filter === null) return respond([], 0, page);
      const plain =
        filter.search === undefined &&
        filter.tagIds === undefined &&
        filter.categoryIds === undefined &&
        filter.gameVersionIds === undefined;
      if (!plain) return filteredPage(filter, order, page);
      const { limit, offset } = pageOf(page);
      const counter = query.type === undefined ? statusCounter('APPROVED') : approvedTypeCounter(query.type);
      const [rows, total] = await Promise.all([
        listApprovedPage(db, dialect, order, query.type, limit, offset),
        readCounter(db, dialect, counter),
      ]);
      return respond(rows, total, page);
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
