// Version rows, their game-version links and the resource's latest-version pointer. Files are in
// version-files/version-files.repo.ts; download counting in downloads/downloads.repo.ts.
import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
import type { DB, ResourceVersionsTable, VersionStatusColumn } from '../../core/db/schema.js';

export type VersionRow = Selectable<ResourceVersionsTable>;
type Executor = Kysely<DB> | Transaction<DB>;

export const findVersion = (
  db: Executor,
  resourceId: string,
  versionId: string,
): Promise<VersionRow | undefined> =>
  db
    .selectFrom('resource_versions')
    .selectAll()
    .where('id', '=', versionId)
    .where('resource_id', '=', resourceId)
    .executeTakeFirst();

export type VersionListRow = Omit<VersionRow, 'changelog'>;

/** Newest first; `statuses` restricts to those (the public sees APPROVED and ARCHIVED). */
export function listVersions(
  db: Executor,
  resourceId: string,
  statuses: readonly VersionStatusColumn[] | null,
): Promise<VersionListRow[]> {
  let query = db
    .selectFrom('resource_versions')
    .select([
      'id',
      'resource_id',
      'version_number',
      'name',
      'channel',
      'status',
      'downloads',
      'submission_note',
      'rejection_reason',
      'created_at',
      'updated_at',
      'submitted_at',
      'approved_at',
    ])
    .where('resource_id', '=', resourceId);
  if (statuses !== null) query = query.where('status', 'in', statuses);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

export async function versionNumberTaken(
  db: Executor,
  resourceId: string,
  versionNumber: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('resource_versions')
    .select('id')
    .where('resource_id', '=', resourceId)
    .where('version_number', '=', versionNumber)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertVersion(db: Executor, row: Insertable<ResourceVersionsTable>): Promise<void> {
  await db.insertInto('resource_versions').values(row).execute();
}

/**
 * Changes a version only while its status is one of `statuses`: a change racing a submit (or any other status
 * move) finds the status changed and reports a conflict rather than editing a version under review.
 */
export async function updateVersionIn(
  db: Executor,
  versionId: string,
  statuses: readonly VersionStatusColumn[],
  patch: Updateable<ResourceVersionsTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('resource_versions')
    .set(patch)
    .where('id', '=', versionId)
    .where('status', 'in', statuses)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteVersionIn(
  db: Executor,
  versionId: string,
  statuses: readonly VersionStatusColumn[],
): Promise<boolean> {
  const result = await db
    .deleteFrom('resource_versions')
    .where('id', '=', versionId)
    .where('status', 'in', statuses)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function replaceGameVersions(db: Executor, versionId: string, ids: string[]): Promise<void> {
  await db.deleteFrom('version_game_versions').where('version_id', '=', versionId).execute();
  if (ids.length > 0) {
    await db
      .insertInto('version_game_versions')
      .values(ids.map((id) => ({ version_id: versionId, game_version_id: id })))
      .execute();
  }
}

export interface VersionGameVersionRow {
  version_id: string;
  id: string;
  name: string;
}

/** The compatible game versions of several versions in one query, newest game version first. */
export function listGameVersionsOf(db: Executor, versionIds: string[]): Promise<VersionGameVersionRow[]> {
  if (versionIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('version_game_versions')
    .innerJoin('game_versions', 'game_versions.id', 'version_game_versions.game_version_id')
    .select(['version_game_versions.version_id', 'game_versions.id', 'game_versions.name'])
    .where('version_game_versions.version_id', 'in', versionIds)
    .orderBy('game_versions.release_order', 'desc')
    .orderBy('game_versions.id')
    .execute();
}

export async function existingGameVersionIds(db: Executor, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('game_versions').select('id').where('id', 'in', ids).execute();
  return new Set(rows.map((row) => row.id));
}

export async function insertModerationEvent(
  db: Executor,
  row: Insertable<DB['version_moderation_events']>,
): Promise<void> {
  await db.insertInto('version_moderation_events').values(row).execute();
}

// ---------------------------------------------------------------------------------------------------------------
// resources.latest_version_id

export async function readLatestVersionId(db: Executor, resourceId: string): Promise<string | null> {
  const row = await db
    .selectFrom('resources')
    .select('latest_version_id')
    .where('id', '=', resourceId)
    .executeTakeFirst();
  return row?.latest_version_id ?? null;
}

export async function setLatestVersion(db: Executor, resourceId: string, versionId: string): Promise<void> {
  await db
    .updateTable('resources')
    .set({ latest_version_id: versionId })
    .where('id', '=', resourceId)
    .execute();
}

/** DESIGN §8: the first approved version becomes latest when the resource has none. True when it did. */
export async function setLatestVersionIfNone(
  db: Executor,
  resourceId: string,
  versionId: string,
): Promise<boolean> {
  const result = await db
    .updateTable('resources')
    .set({ latest_version_id: versionId })
    .where('id', '=', resourceId)
    .where('latest_version_id', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Unsets the latest version if it is `versionId`; true when it was. */
export async function clearLatestVersionIf(
  db: Executor,
  resourceId: string,
  versionId: string,
): Promise<boolean> {
  const result = await db
    .updateTable('resources')
    .set({ latest_version_id: null })
    .where('id', '=', resourceId)
    .where('latest_version_id', '=', versionId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The storage keys of every file of every version of a resource (its deletion collects them). */
export async function fileKeysOfResource(db: Executor, resourceId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('version_files')
    .innerJoin('resource_versions', 'resource_versions.id', 'version_files.version_id')
    .select('version_files.storage_key')
    .where('resource_versions.resource_id', '=', resourceId)
    .execute();
  return rows.map((row) => row.storage_key);
}
