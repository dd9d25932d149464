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
//
// The version itself is kept under the database's change signal (Database.changes): while nothing at all has
// been committed it cannot have moved, so it is read again only after a change (on PostgreSQL that saves a round
// trip per request; the signal's fence is shared by concurrent requests). Concurrent misses of one page share one
// rendering (perf-findings: ~75 renderings per 5 s where one was needed).
import { weakEtag } from './rendered.js';
import type { RenderedBody } from './rendered.js';
import type { Clock } from '../clock.js';
import { setBounded } from '../bounded-map.js';
import { createChangeCache } from '../db/change-cache.js';
import type { ChangeSignal } from '../db/change-cache.js';

export const DIRECTORY_CACHE_TTL_MS = 5_000;
/** Bounds memory: about 18 KB a default page, 90 KB at limit 100. */
const MAX_ENTRIES = 256;

interface Entry {
  version: number;
  /** When its rendering started: the page shows the database as of then or later. */
  renderedAt: number;
  page: RenderedBody;
}

interface Rendering {
  version: number;
  startedAt: number;
  page: Promise<RenderedBody>;
}

export type DirectoryCache = ReturnType<typeof createDirectoryCache>;

export function createDirectoryCache(deps: {
  clock: Clock;
  /** The current directory version (one indexed read). */
  readVersion: () => Promise<number>;
  /** The database's change signal; without one the version is read on every request. */
  changes?: ChangeSignal | undefined;
  ttlMs?: number;
  maxEntries?: number;
}) {
  const { clock, readVersion } = deps;
  const ttlMs = deps.ttlMs ?? DIRECTORY_CACHE_TTL_MS;
  const maxEntries = deps.maxEntries ?? MAX_ENTRIES;
  const entries = new Map<string, Entry>();
  const rendering = new Map<string, Rendering>();
  const versions = createChangeCache<number>({ changes: deps.changes, maxEntries: 1 });
  const currentVersion = () => versions.get('', readVersion);

  function render(key: string, version: number, now: number, produce: () => Promise<string>) {
    const slot: Rendering = {
      version,
      startedAt: now,
      page: produce().then((body) => ({ body, etag: weakEtag(body) })),
    };
    const done = () => {
      if (rendering.get(key) === slot) rendering.delete(key);
    };
    slot.page = slot.page.then(
      (page) => {
        done();
        const current = entries.get(key);
        // A slower rendering of an older version or start must not replace a newer page.
        if (
          current === undefined ||
          current.version < version ||
          (current.version === version && current.renderedAt <= now)
        ) {
          // Re-filed as the newest entry, so the bound drops the page rendered longest ago.
          entries.delete(key);
          setBounded(entries, key, { version, renderedAt: now, page }, maxEntries);
        }
        return page;
      },
      (error: unknown) => {
        done();
        throw error;
      },
    );
    rendering.set(key, slot);
    return slot.page;
  }

  return {
    /**
     * The page for `key`: from the cache while its version is current and it is younger than the TTL, otherwise
     * rendered by `render` and kept. The version is read before rendering, so a kept page is never older than
     * the version it is filed under. A rendering already running for the same version, started within the TTL,
     * is shared.
     */
    async page(key: string, produce: () => Promise<string>): Promise<RenderedBody> {
      const version = await currentVersion();
      const now = clock.now().getTime();
      const entry = entries.get(key);
      if (entry !== undefined && entry.version === version && entry.renderedAt + ttlMs > now) {
        return entry.page;
      }
      const running = rendering.get(key);
      if (running !== undefined && running.version === version && running.startedAt + ttlMs > now) {
        return running.page;
      }
      return render(key, version, now, produce);
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
  facets?: string[];
  limit: number;
  offset: number;
}): string {
  // Only leading blanks are noise: a trailing space ends the last word (no prefix match, search/text.ts).
  const search = query.search?.trimStart() ?? '';
  const ids = (list: string[] | undefined) => [...new Set(list ?? [])].sort().join(',');
  return JSON.stringify([
    query.sort ?? 'rank',
    query.limit,
    query.offset,
    search,
    ids(query.categories),
    ids(query.tags),
    ids(query.facets),
  ]);
}
