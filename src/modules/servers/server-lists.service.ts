// The server lists: the public directory (APPROVED only) and the lists of one owner, where the owner side and
// moderators also see the servers that are not APPROVED.
import type { Kysely } from 'kysely';
import type { Actor } from '../../core/auth/authenticate.js';
import type { ServerAccess } from '../../core/auth/server-access.js';
import type { DialectName } from '../../core/db/database.js';
import type { DB } from '../../core/db/schema.js';
import { notFound } from '../../core/http/errors.js';
import type { MediaUrls } from '../../core/media-urls.js';
import type { CappedTotal } from '../search/capped-total.js';
import { scanPays, walkPays } from '../search/plan-costs.js';
import { searchWindow } from '../search/result-window.js';
import { parseSearch } from '../search/text.js';
import {
  countApprovedServers,
  isUnfiltered,
  listApprovedServers,
  SERVER_SCAN_ROWS,
} from './server-directory.repo.js';
import type { ServerFilter, ServerPlan } from './server-directory.repo.js';
import { serverFacets } from './server-facets.repo.js';
import { listRelevantServers } from './server-relevance.repo.js';
import type { ServerFacet } from './server-facets.repo.js';
import { listServersOfOwner } from './server-reads.repo.js';
import type { ServerSort } from './server-reads.repo.js';
import { toServerListItem, toServerSummary } from './servers.mapper.js';
import { findUserStanding, readApprovedTotal, readDirectoryVersion, teamExists } from './servers.repo.js';

export interface ServerListRequest {
  search?: string;
  categories?: string[];
  tags?: string[];
  sort?: ServerSort;
  facets?: ServerFacet[];
  limit: number;
  offset: number;
}

export type ServerListsService = ReturnType<typeof createServerListsService>;

export function createServerListsService(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  urls: MediaUrls;
  serverAccess: ServerAccess;
}) {
  const { db, dialect, urls, serverAccess } = deps;

  async function ofOwner(actor: Actor | null, ownerType: 'USER' | 'TEAM', ownerId: string) {
    const all = await serverAccess.seesAllOf(actor, { ownerType, ownerId });
    return (await listServersOfOwner(db, { ownerType, ownerId }, all)).map((row) =>
      toServerSummary(row, urls),
    );
  }

  /** How a filtered page is read (server-directory.repo.ts ServerPlan): its count decides. */
  async function planOf(
    filter: ServerFilter,
    counted: CappedTotal,
    request: { limit: number; offset: number },
  ): Promise<ServerPlan | undefined> {
    const pageEnd = request.offset + request.limit;
    const approved = () => readApprovedTotal(db);
    if (filter.search !== undefined) {
      // (Relevance with a search has its own plan, server-relevance.repo.ts: the rank order's here.)
      const scans = await scanPays(counted, pageEnd, approved, SERVER_SCAN_ROWS[dialect]);
      return scans ? 'scan' : undefined;
    }
    // Past the cap the matches are at least that many: walking pays all the more.
    return (await walkPays(counted.total, pageEnd, approved)) ? 'walk' : undefined;
  }

  return {
    /** The version of the public directory, which every change it shows moves (see core/http/page-cache.ts). */
    directoryVersion: () => readDirectoryVersion(db, dialect),

    /**
     * GET /servers. Without filters `total` is the maintained count of APPROVED servers; with filters it is
     * the number of matching servers, counted in time proportional to the matches (server-directory.repo.ts).
     */
    async list(request: ServerListRequest) {
      const search = parseSearch(request.search ?? '');
      const filter: ServerFilter = {
        ...(search !== null ? { search } : {}),
        categoryIds: request.categories ?? [],
        tagIds: request.tags ?? [],
      };
      const sort = request.sort ?? 'rank';
      const facetNames = [...new Set(request.facets ?? [])];
      const counted = isUnfiltered(filter)
        ? readApprovedTotal(db).then((total) => ({ total, exact: true }))
        : countApprovedServers(db, dialect, filter);
      // The facets are exact up to SEARCH_LIMITS.facetScanLimit matches, which the total tells; they start now.
      const facets =
        facetNames.length === 0
          ? undefined
          : serverFacets(
              db,
              dialect,
              filter,
              facetNames,
              counted.then((matched) => matched.total),
            );
      // Many matches are read by walking the sort index, as the resources' are (search/plan-costs.ts): a
      // search ordered by a column tests each row's text (scanPays), catalog lists alone probe each row's links
      // (walkPays). The count decides, so the page waits for it; relevance counts its own tiers and does not.
      const listed = (async () => {
        // A search's pages stop at its result window (search/result-window.ts).
        const window = filter.search === undefined ? request : searchWindow(request);
        if (window === undefined) return [];
        if (sort === 'relevance' && filter.search !== undefined) {
          return listRelevantServers(db, dialect, filter, filter.search, window);
        }
        const plan = isUnfiltered(filter) ? undefined : await planOf(filter, await counted, window);
        return listApprovedServers(db, dialect, filter, sort, { ...window, plan });
      })();
      // One Promise.all from the start: whichever fails first fails the request, and no rejection goes unheard.
      const [rows, total, faceted] = await Promise.all([listed, counted, facets]);
      return {
        servers: rows.map((row) => toServerListItem(row, urls)),
        total: total.total,
        totalExact: total.exact,
        ...(faceted !== undefined ? { facets: faceted.facets, facetsExact: faceted.exact } : {}),
      };
    },

    /** A user's own servers (not their teams'): all of them for the user and moderators, APPROVED for others. */
    async ofUser(actor: Actor | null, userId: string) {
      if ((await findUserStanding(db, userId)) === undefined) throw notFound('User');
      return ofOwner(actor, 'USER', userId);
    },

    /** The caller's own servers in every status; team servers are listed per team (GET /teams/:id/servers). */
    mine: (actor: Actor) => ofOwner(actor, 'USER', actor.userId),

    /** A team's servers: all of them for its members and moderators, APPROVED for everyone else. */
    async ofTeam(actor: Actor | null, teamId: string) {
      if (!(await teamExists(db, teamId))) throw notFound('Team');
      return ofOwner(actor, 'TEAM', teamId);
    },
  };
}
