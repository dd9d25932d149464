// Atom feeds (extensions §1.3): public documents of what the public may see, whoever asks. A resource that is not
// APPROVED, an unknown team and an unknown or banned user have no feed (404): what the public cannot see does not
// exist. Each feed costs a fixed number of queries; the catalogue feed is also kept rendered per filter set,
// filed under the catalogue version (resources.repo.ts) that every change the public resource list shows moves.
import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import type { DialectName } from '../../core/db/database.js';
import type { DB, ResourceType } from '../../core/db/schema.js';
import { notFound } from '../../core/http/errors.js';
import { createDirectoryCache } from '../../core/http/page-cache.js';
import type { RenderedBody } from '../../core/http/rendered.js';
import { resolveCategoryFilter, resolveTagFilter } from '../resources/resource-links.repo.js';
import { readCatalogueVersion } from '../resources/resources.repo.js';
import { findTeamById } from '../teams/teams.repo.js';
import { findUserById } from '../users/users.repo.js';
import { feedUrls, newestFirst, ownerAuthor, renderAtom, resourceEntry, versionEntry } from './feeds.atom.js';
import type { AtomAuthor } from './feeds.atom.js';
import {
  FEED_SIZE,
  findResourceHead,
  listApprovedVersions,
  listCatalogueResources,
  listOwnerResources,
} from './feeds.repo.js';
import type { CatalogueFilter, FeedOwner } from './feeds.repo.js';

export interface CatalogueQuery {
  type?: ResourceType;
  tags?: string[];
  categories?: string[];
}

/** Kept as long as the browser may keep it (Cache-Control max-age), unless the catalogue changes first. */
const CATALOGUE_TTL_MS = 60_000;
/** About 50 KB a feed: bounds the cache near 3 MB. */
const CATALOGUE_ENTRIES = 64;
/** `<updated>` of an empty catalogue feed: a fixed instant keeps its ETag stable. */
const NEVER = new Date(0);

const valueSet = (values: string[] | undefined): string[] => [...new Set(values ?? [])].sort();

export type FeedsService = ReturnType<typeof createFeedsService>;

export function createFeedsService(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  clock: Clock;
  publicUrl: string;
}) {
  const { db, dialect, clock } = deps;
  const urls = feedUrls(deps.publicUrl);
  const catalogue = createDirectoryCache({
    clock,
    readVersion: () => readCatalogueVersion(db, dialect),
    ttlMs: CATALOGUE_TTL_MS,
    maxEntries: CATALOGUE_ENTRIES,
  });

  /** A user's or team's feed: its newest APPROVED resources and versions together, newest 50. */
  async function ownerFeed(owner: FeedOwner, author: AtomAuthor, selfPath: string, title: string) {
    const [resources, versions] = await Promise.all([
      listOwnerResources(db, dialect, owner),
      listApprovedVersions(db, { owner }),
    ]);
    const entries = newestFirst(
      [
        resources.map((row) => resourceEntry(row, urls)),
        versions.map((row) => versionEntry(row, author, urls)),
      ],
      FEED_SIZE,
    );
    return { entries, selfUrl: urls.at(selfPath), title, author };
  }

  /** Filter values that name no tag or category match nothing, as on GET /resources. */
  async function resolveCatalogueFilter(query: CatalogueQuery): Promise<CatalogueFilter | null> {
    const filter: CatalogueFilter = query.type === undefined ? {} : { type: query.type };
    const tags = valueSet(query.tags);
    const categories = valueSet(query.categories);
    if (tags.length > 0) {
      filter.tagIds = await resolveTagFilter(db, tags);
      if (filter.tagIds.length === 0) return null;
    }
    if (categories.length > 0) {
      filter.categoryIds = await resolveCategoryFilter(db, categories, query.type);
      if (filter.categoryIds.length === 0) return null;
    }
    return filter;
  }

  async function renderCatalogue(query: CatalogueQuery, search: URLSearchParams): Promise<string> {
    const filter = await resolveCatalogueFilter(query);
    const rows = filter === null ? [] : await listCatalogueResources(db, dialect, filter);
    const described = [...search.entries()].map(([name, value]) => `${name} ${value.split(',').join(', ')}`);
    const suffix = search.size === 0 ? '' : ` (${described.join('; ')})`;
    return renderAtom({
      selfUrl: urls.at(`/resources/feed.atom${search.size === 0 ? '' : `?${search.toString()}`}`),
      url: urls.at(`/resources${search.size === 0 ? '' : `?${search.toString()}`}`),
      title: `Newly approved resources${suffix}`,
      subtitle: 'Resources as they are approved, newest first',
      entries: rows.map((row) => resourceEntry(row, urls)),
      emptyUpdated: NEVER,
    });
  }

  return {
    /** GET /resources/:id/feed.atom: the APPROVED versions of an APPROVED resource. */
    async resource(resourceId: string): Promise<string> {
      const [head, versions] = await Promise.all([
        findResourceHead(db, resourceId),
        listApprovedVersions(db, { resourceId }),
      ]);
      if (head === undefined || head.status !== 'APPROVED') throw notFound('Resource');
      const author = ownerAuthor(head, urls);
      return renderAtom({
        selfUrl: urls.at(`/resources/${head.id}/feed.atom`),
        url: urls.resource(head.id),
        title: `${head.name}: versions`,
        subtitle: `Approved versions of ${head.name}, newest first, with their changelogs`,
        author,
        entries: versions.map((row) => versionEntry(row, author, urls)),
        emptyUpdated: new Date(head.updated_at),
      });
    },

    /** GET /users/:userId/feed.atom: what the user publishes under their own name (USER-owned resources). */
    async user(userId: string): Promise<string> {
      const user = await findUserById(db, userId);
      if (user === undefined || user.status === 'BANNED') throw notFound('User');
      const name = user.display_name ?? user.username;
      const feed = await ownerFeed(
        { type: 'USER', id: user.id },
        { name, uri: urls.user(user.id) },
        `/users/${user.id}/feed.atom`,
        `${name}: resources and versions`,
      );
      return renderAtom({
        ...feed,
        url: urls.user(user.id),
        subtitle: `Resources and versions published by ${name}, newest first`,
        emptyUpdated: new Date(user.created_at),
      });
    },

    /** GET /teams/:id/feed.atom: what the team publishes (TEAM-owned resources). */
    async team(teamId: string): Promise<string> {
      const team = await findTeamById(db, teamId);
      if (team === undefined) throw notFound('Team');
      const feed = await ownerFeed(
        { type: 'TEAM', id: team.id },
        { name: team.name, uri: urls.team(team.id) },
        `/teams/${team.id}/feed.atom`,
        `${team.name}: resources and versions`,
      );
      return renderAtom({
        ...feed,
        url: urls.team(team.id),
        subtitle: `Resources and versions published by the team ${team.name}, newest first`,
        emptyUpdated: new Date(team.created_at),
      });
    },

    /** GET /resources/feed.atom: newly approved resources, filtered as GET /resources filters them. */
    catalogue(query: CatalogueQuery): Promise<RenderedBody> {
      const search = new URLSearchParams();
      if (query.type !== undefined) search.set('type', query.type);
      const tags = valueSet(query.tags);
      const categories = valueSet(query.categories);
      if (tags.length > 0) search.set('tags', tags.join(','));
      if (categories.length > 0) search.set('categories', categories.join(','));
      return catalogue.page(search.toString(), () => renderCatalogue(query, search));
    },
  };
}
