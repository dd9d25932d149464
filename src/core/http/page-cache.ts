// Rendered pages of the public lists (GET /servers, GET /resources), kept for a few seconds. A list's front page
// is identical for every caller and rendering it (one query with owners, tags and categories, then 20 objects
// to JSON) costs several times what serving the bytes does.
//
// Freshness: an entry is tied to a version number kept in the database (servers.repo.ts bumpDirectoryVersion,
// resources' bumpCatalogueVersion), which every write that changes what the list shows moves in its own
// transaction — moderation, edits, images, transfers, deletes, catalog edits, rank recomputations. A page is
// therefore never served after such a change, on any instance. Only figures that change constantly (live
// player counts, download counts) and owner profile changes (names, avatars, team logos) reach the page
// through expiry, within DIRECTORY_CACHE_TTL_MS.
import { weakEtag } from './rendered.js';
import type { RenderedBody } from './rendered.js';
import type { Clock } from '../clock.js';
import { setBounded } from '../bounded-map.js';

export const DIRECTORY_CACHE_TTL_MS = 5_000;
/** Bounds memory: about 18 KB a default page, 90 KB at limit 100. */
const MAX_ENTRIES = 256;

interface Entry {
  version: number;
  expiresAt: number;
  page: RenderedBody;
}

export type DirectoryCache = ReturnType<typeof createDirectoryCache>;

export function createDirectoryCache(deps: {
  clock: Clock;
  /** The current directory version (one indexed read). */
  readVersion: () => Promise<number>;
  ttlMs?: number;
  maxEntries?: number;
}) {
  const { clock, readVersion } = deps;
  const ttlMs = deps.ttlMs ?? DIRECTORY_CACHE_TTL_MS;
  const maxEntries = deps.maxEntries ?? MAX_ENTRIES;
  const entries = new Map<string, Entry>();

  return {
    /**
     * The page for `key`: from the cache while its version is current and it has not expired, otherwise
     * rendered by `render` and kept. The version is read before rendering, so a kept page is never older than
     * the version it is filed under.
     */
    async page(key: string, render: () => Promise<string>): Promise<RenderedBody> {
      const version = await readVersion();
      const now = clock.now().getTime();
      const entry = entries.get(key);
      if (entry !== undefined && entry.version === version && entry.expiresAt > now) return entry.page;
      const body = await render();
      const page = { body, etag: weakEtag(body) };
      // Re-filed as the newest entry, so the bound drops the page rendered longest ago.
      entries.delete(key);
      setBounded(entries, key, { version, expiresAt: now + ttlMs, page }, maxEntries);
      return page;
    },

    size: () => entries.size,
  };
}

/** The cache key of a directory query: equal for queries that always give the same page. */
export function directoryKey(query: {
  search?: string;
  categories?: string[];
  tags?: string[];
  sort?: string;
  limit: number;
  offset: number;
}): string {
  const search = query.search?.trim() ?? '';
  const ids = (list: string[] | undefined) => [...new Set(list ?? [])].sort().join(',');
  return JSON.stringify([
    query.sort ?? 'rank',
    query.limit,
    query.offset,
    search,
    ids(query.categories),
    ids(query.tags),
  ]);
}
