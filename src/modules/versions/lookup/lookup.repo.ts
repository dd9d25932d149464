// Reads of the lookups by hash and the update check (§2.1). Every function reads many rows in one query: a request
// costs the same number of queries whatever the number of hashes.
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { DB, ResourceContributorRole } from '../../../core/db/schema.js';
import type { ResourceSummaryRow } from '../../resources/resources.mapper.js';
import type { VersionFileRow } from '../version-files/version-files.repo.js';
import type { VersionRow } from '../versions.repo.js';
import type { VersionChannel } from '../versions.states.js';
import type { HashAlgorithm } from './lookup.schemas.js';

type Executor = Kysely<DB> | Transaction<DB>;

/** A file with a requested hash, with what deciding its visibility and its rank needs. */
export interface MatchRow extends VersionFileRow {
  resource_id: string;
  version_status: VersionRow['status'];
  version_approved_at: string | null;
  version_created_at: string;
  resource_status: DB['resources']['status'];
  owner_type: 'USER' | 'TEAM';
  owner_id: string;
}

/**
 * Every file whose `algorithm` digest is one of `hashes` (lower-case), with its version and resource facts.
 * `publicOnly` applies the public's rule in SQL (APPROVED and ARCHIVED versions of APPROVED resources): the
 * anonymous case needs no further check and reads no invisible row.
 */
export function findFilesByHash(
  db: Executor,
  algorithm: HashAlgorithm,
  hashes: readonly string[],
  publicOnly: boolean,
): Promise<MatchRow[]> {
  if (hashes.length === 0) return Promise.resolve([]);
  let query = db
    .selectFrom('version_files')
    .innerJoin('resource_versions', 'resource_versions.id', 'version_files.version_id')
    .innerJoin('resources', 'resources.id', 'resource_versions.resource_id')
    .selectAll('version_files')
    .select([
      'resource_versions.resource_id',
      'resource_versions.status as version_status',
      'resource_versions.approved_at as version_approved_at',
      'resource_versions.created_at as version_created_at',
      'resources.status as resource_status',
      'resources.owner_type',
      'resources.owner_id',
    ])
    .where(`version_files.${algorithm}`, 'in', hashes);
  if (publicOnly) {
    query = query
      .where('resources.status', '=', 'APPROVED')
      .where('resource_versions.status', 'in', ['APPROVED', 'ARCHIVED']);
  }
  return query.execute();
}

/** The caller's contributor role on each of `resourceIds` (absent: none), in one query. */
export async function contributorRoles(
  db: Executor,
  userId: string,
  resourceIds: readonly string[],
): Promise<Map<string, ResourceContributorRole>> {
  if (resourceIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('resource_contributors')
    .select(['resource_id', 'role'])
    .where('user_id', '=', userId)
    .where('resource_id', 'in', resourceIds)
    .execute();
  return new Map(rows.map((row) => [row.resource_id, row.role]));
}

export function findVersionsById(db: Executor, versionIds: readonly string[]): Promise<VersionRow[]> {
  if (versionIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('resource_versions').selectAll().where('id', 'in', versionIds).execute();
}

export interface ResourceCardRow extends ResourceSummaryRow {
  latest_version_id: string | null;
}

/** The summary fields and the latest-version pointer of several resources. */
export function findResourceCards(db: Executor, resourceIds: readonly string[]): Promise<ResourceCardRow[]> {
  if (resourceIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('resources')
    .select(['id', 'name', 'slug', 'short_description', 'icon_key', 'type', 'latest_version_id'])
    .where('id', 'in', resourceIds)
    .execute();
}

export interface CompatibilityFilter {
  /** Game version names: compatible with at least one. Undefined: any. */
  gameVersions?: readonly string[];
  /** Undefined: every channel. */
  channels?: readonly VersionChannel[];
}

/**
 * For each of `resourceIds`, its newest APPROVED version (approval time, then creation time, then id) that
 * passes the filter: one query, the ranking done by a window function so no other version is read out.
 */
export async function newestApprovedVersions(
  db: Executor,
  resourceIds: readonly string[],
  filter: CompatibilityFilter,
): Promise<VersionRow[]> {
  if (resourceIds.length === 0) return [];
  let candidates = db
    .selectFrom('resource_versions')
    .selectAll('resource_versions')
    .select(
      sql<number>`row_number() over (partition by resource_versions.resource_id order by resource_versions.approved_at desc, resource_versions.created_at desc, resource_versions.id desc)`.as(
        'rank',
      ),
    )
    .where('resource_versions.resource_id', 'in', resourceIds)
    .where('resource_versions.status', '=', 'APPROVED');
  if (filter.channels !== undefined) {
    candidates = candidates.where('resource_versions.channel', 'in', filter.channels);
  }
  const names = filter.gameVersions;
  if (names !== undefined) {
    candidates = candidates.where((eb) =>
      eb.exists(
        eb
          .selectFrom('version_game_versions')
          .innerJoin('game_versions', 'game_versions.id', 'version_game_versions.game_version_id')
          .select('version_game_versions.version_id')
          .whereRef('version_game_versions.version_id', '=', 'resource_versions.id')
          .where('game_versions.name', 'in', names),
      ),
    );
  }
  const rows = await db
    .selectFrom(candidates.as('ranked'))
    .selectAll('ranked')
    .where('ranked.rank', '=', 1)
    .execute();
  return rows.map(({ rank: _rank, ...version }) => version);
}
