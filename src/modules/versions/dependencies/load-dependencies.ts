// Reads the dependencies of many versions at once (spec/extensions.md §2.2): the version object, the versions
// list and the lookups show them. One query whatever the number of versions.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../../core/db/schema.js';
import type { MediaUrls } from '../../../core/media-urls.js';
import { toResourceSummary } from '../../resources/resources.mapper.js';
import { joinedSummary, readDependencies } from './dependencies.repo.js';
import type { DependencyRow, JoinedSummary } from './dependencies.repo.js';
import type { VersionDependencyView } from './dependencies.schemas.js';

const NO_URLS: MediaUrls = { url: () => null, avatar: () => '' };

/**
 * A dependency as the API shows it. The ids follow what the author declared (a versionId target shows
 * versionId, not its resource); a target deleted since shows null ids. The resource summary is shown while the
 * target resource is APPROVED, whoever asks: the same version reads the same for everyone, and a target that
 * became invisible later shows no summary.
 */
export function toVersionDependency(
  row: DependencyRow & JoinedSummary,
  urls: MediaUrls,
): VersionDependencyView {
  const summary = row.r_status === 'APPROVED' ? joinedSummary(row) : null;
  return {
    id: row.id,
    type: row.type,
    resourceId: row.target_kind === 'RESOURCE' ? row.target_resource_id : null,
    versionId: row.target_kind === 'VERSION' ? row.target_version_id : null,
    externalName: row.external_name,
    externalUrl: row.external_url,
    minVersion: row.min_version,
    resource: summary === null ? null : toResourceSummary(summary, urls),
  };
}

/**
 * versionId → its dependencies in their stored order; versions without any are absent from the map.
 * Pass `urls` (SharedServices.urls) for the summaries' iconUrl; without it iconUrl is null.
 */
export async function loadDependencies(
  db: Kysely<DB> | Transaction<DB>,
  versionIds: readonly string[],
  urls: MediaUrls = NO_URLS,
): Promise<Map<string, VersionDependencyView[]>> {
  const byVersion = new Map<string, VersionDependencyView[]>();
  if (versionIds.length === 0) return byVersion;
  for (const row of await readDependencies(db, [...new Set(versionIds)])) {
    const view = toVersionDependency(row, urls);
    const list = byVersion.get(row.version_id);
    if (list === undefined) byVersion.set(row.version_id, [view]);
    else list.push(view);
  }
  return byVersion;
}
