// Lookups by hash, the update check and the latest version (spec/extensions.md §2.1). Each request reads a fixed
// number of queries whatever the number of hashes: the matching files in one, the caller's facts in at most two,
// then the answer's versions, resources, files, game versions and dependencies in one each.
import type { Kysely } from 'kysely';
import type { Access } from '../../../core/auth/access.js';
import type { Actor } from '../../../core/auth/authenticate.js';
import type { VersionAccess } from '../../../core/auth/version-access.js';
import type { DB } from '../../../core/db/schema.js';
import { badRequest, notFound } from '../../../core/http/errors.js';
import type { MediaUrls } from '../../../core/media-urls.js';
import { toResourceSummary } from '../../resources/resources.mapper.js';
import type { ResourcesService } from '../../resources/resources.service.js';
import { loadDependencies } from '../dependencies/load-dependencies.js';
import type { VersionDependencyView } from '../dependencies/dependencies.schemas.js';
import { listFilesOf } from '../version-files/version-files.repo.js';
import type { VersionFileRow } from '../version-files/version-files.repo.js';
import { toVersion, toVersionFile } from '../versions.mapper.js';
import type { VersionFileView, VersionView } from '../versions.mapper.js';
import { listGameVersionsOf } from '../versions.repo.js';
import type { VersionGameVersionRow, VersionRow } from '../versions.repo.js';
import { visibilityFor } from './bulk-visibility.js';
import * as repo from './lookup.repo.js';
import type { CompatibilityFilter, MatchRow } from './lookup.repo.js';
import { HEX_LENGTH } from './lookup.schemas.js';
import type { HashAlgorithm } from './lookup.schemas.js';

export type LookupVersionView = VersionView & { dependencies: VersionDependencyView[] };

export interface FileMatchView {
  file: VersionFileView;
  version: LookupVersionView;
  resource: ReturnType<typeof toResourceSummary>;
}

interface Newness {
  approvedAt: string | null;
  createdAt: string;
  id: string;
}

/**
 * "Newest" (§2.1): by approval time, then creation time; the id breaks exact ties so answers are stable. A
 * version never approved (a draft its owner sees) ranks below every approved one.
 */
export function compareNewness(a: Newness, b: Newness): number {
  if (a.approvedAt !== b.approvedAt) {
    if (a.approvedAt === null) return -1;
    if (b.approvedAt === null) return 1;
    return Date.parse(a.approvedAt) - Date.parse(b.approvedAt);
  }
  const created = Date.parse(a.createdAt) - Date.parse(b.createdAt);
  if (created !== 0) return created;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

const newnessOfMatch = (row: MatchRow): Newness => ({
  approvedAt: row.version_approved_at,
  createdAt: row.version_created_at,
  id: row.version_id,
});
const newnessOfVersion = (row: VersionRow): Newness => ({
  approvedAt: row.approved_at,
  createdAt: row.created_at,
  id: row.id,
});

/** Lower-cased, checked against the algorithm's length (400 naming the first bad one), repeats dropped. */
export function normalizeHashes(
  hashes: readonly string[],
  algorithm: HashAlgorithm,
  field: string,
): string[] {
  const length = HEX_LENGTH[algorithm];
  const bad = hashes.findIndex((hash) => hash.length !== length);
  if (bad >= 0) {
    const where = hashes.length === 1 && field.startsWith('params') ? field : `${field}/${bad}`;
    throw badRequest(`A ${algorithm} hash has ${length} hex digits`, {
      fields: { [where]: `expected ${length} hex digits for ${algorithm}, got ${hashes[bad]?.length}` },
    });
  }
  return [...new Set(hashes.map((hash) => hash.toLowerCase()))];
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group === undefined) groups.set(key(item), [item]);
    else group.push(item);
  }
  return groups;
}

export type LookupService = ReturnType<typeof createLookupService>;

export function createLookupService(deps: {
  db: Kysely<DB>;
  access: Access;
  versionAccess: VersionAccess;
  resources: Pick<ResourcesService, 'requireHead'>;
  urls: MediaUrls;
}) {
  const { db, access, versionAccess, resources, urls } = deps;

  /** For each hash, the newest file with it that the caller may see (absent: none). */
  async function newestVisibleFiles(
    actor: Actor | null,
    algorithm: HashAlgorithm,
    hashes: readonly string[],
  ): Promise<Map<string, MatchRow>> {
    const rows = await repo.findFilesByHash(db, algorithm, hashes, actor === null);
    const visible = await visibilityFor(db, access, actor, rows);
    const newest = new Map<string, MatchRow>();
    for (const row of rows) {
      if (!visible(row)) continue;
      const hash = row[algorithm];
      if (hash === null) continue;
      const current = newest.get(hash);
      if (current === undefined || compareNewness(newnessOfMatch(row), newnessOfMatch(current)) > 0) {
        newest.set(hash, row);
      }
    }
    return newest;
  }

  /** Version objects as GET /resources/:id/versions/:versionId shows them, plus their dependencies. */
  async function versionViews(
    versions: readonly VersionRow[],
    latestOf: (resourceId: string) => string | null,
  ): Promise<Map<string, LookupVersionView>> {
    const ids = versions.map((version) => version.id);
    const [files, gameVersions, dependencies] = await Promise.all([
      listFilesOf(db, ids),
      listGameVersionsOf(db, ids),
      loadDependencies(db, ids, urls),
    ]);
    const filesOf = groupBy<VersionFileRow>(files, (file) => file.version_id);
    const gameVersionsOf = groupBy<VersionGameVersionRow>(gameVersions, (row) => row.version_id);
    return new Map(
      versions.map((version) => [
        version.id,
        {
          ...toVersion(
            version,
            latestOf(version.resource_id),
            filesOf.get(version.id) ?? [],
            gameVersionsOf.get(version.id) ?? [],
          ),
          dependencies: dependencies.get(version.id) ?? [],
        },
      ]),
    );
  }

  async function lookup(
    actor: Actor | null,
    algorithm: HashAlgorithm,
    hashes: readonly string[],
  ): Promise<Map<string, FileMatchView>> {
    const newest = await newestVisibleFiles(actor, algorithm, hashes);
    const matches = [...newest.values()];
    const versionIds = [...new Set(matches.map((row) => row.version_id))];
    const resourceIds = [...new Set(matches.map((row) => row.resource_id))];
    const [versionRows, cards] = await Promise.all([
      repo.findVersionsById(db, versionIds),
      repo.findResourceCards(db, resourceIds),
    ]);
    const cardOf = new Map(cards.map((card) => [card.id, card]));
    const views = await versionViews(versionRows, (id) => cardOf.get(id)?.latest_version_id ?? null);
    const answer = new Map<string, FileMatchView>();
    for (const [hash, row] of newest) {
      const version = views.get(row.version_id);
      const card = cardOf.get(row.resource_id);
      // Deleted between the reads: as if it had not been found.
      if (version === undefined || card === undefined) continue;
      answer.set(hash, { file: toVersionFile(row), version, resource: toResourceSummary(card, urls) });
    }
    return answer;
  }

  return {
    async byHash(actor: Actor | null, hash: string, algorithm: HashAlgorithm): Promise<FileMatchView> {
      const [normalized] = normalizeHashes([hash], algorithm, 'params/hash');
      const found = (await lookup(actor, algorithm, [normalized as string])).get(normalized as string);
      if (found === undefined) throw notFound('File');
      return found;
    },

    async lookupMany(actor: Actor | null, hashes: readonly string[], algorithm: HashAlgorithm) {
      const found = await lookup(actor, algorithm, normalizeHashes(hashes, algorithm, 'body/hashes'));
      return { files: Object.fromEntries(found) };
    },

    /**
     * For each hash's file (the one lookup answers), the newest APPROVED compatible version of its resource when
     * it is newer than the file's own version. The file being visible means its resource is, and an APPROVED
     * version of a visible resource is visible to everyone who sees the resource.
     */
    async updates(
      actor: Actor | null,
      input: { hashes: readonly string[]; algorithm: HashAlgorithm } & CompatibilityFilter,
    ) {
      const hashes = normalizeHashes(input.hashes, input.algorithm, 'body/hashes');
      const known = await newestVisibleFiles(actor, input.algorithm, hashes);
      const resourceIds = [...new Set([...known.values()].map((row) => row.resource_id))];
      const filter: CompatibilityFilter = {
        ...(input.gameVersions === undefined ? {} : { gameVersions: [...new Set(input.gameVersions)] }),
        ...(input.channels === undefined ? {} : { channels: [...new Set(input.channels)] }),
      };
      const [candidates, cards] = await Promise.all([
        repo.newestApprovedVersions(db, resourceIds, filter),
        repo.findResourceCards(db, resourceIds),
      ]);
      const candidateOf = new Map(candidates.map((version) => [version.resource_id, version]));
      const updateOf = new Map<string, VersionRow>();
      for (const [hash, row] of known) {
        const candidate = candidateOf.get(row.resource_id);
        if (candidate === undefined) continue;
        if (compareNewness(newnessOfVersion(candidate), newnessOfMatch(row)) > 0)
          updateOf.set(hash, candidate);
      }
      const latestOf = new Map(cards.map((card) => [card.id, card.latest_version_id]));
      const chosen = [...new Map([...updateOf.values()].map((version) => [version.id, version])).values()];
      const views = await versionViews(chosen, (id) => latestOf.get(id) ?? null);
      const updates: Record<string, LookupVersionView> = {};
      for (const [hash, version] of updateOf) {
        const view = views.get(version.id);
        if (view !== undefined) updates[hash] = view;
      }
      return { updates };
    },

    /** The newest APPROVED version of an APPROVED resource matching the filter; 404 otherwise (public route). */
    async latest(resourceId: string, filter: CompatibilityFilter): Promise<LookupVersionView> {
      const head = await resources.requireHead(resourceId);
      // The route is public: the resource must be one the public sees (404 otherwise, as everywhere).
      await versionAccess.scope(null, head);
      const [newest] = await repo.newestApprovedVersions(db, [resourceId], filter);
      if (newest === undefined) throw notFound('Version');
      const views = await versionViews([newest], () => head.latest_version_id);
      const view = views.get(newest.id);
      if (view === undefined) throw notFound('Version');
      return view;
    },
  };
}
