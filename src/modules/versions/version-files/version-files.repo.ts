// Version file rows. At most one primary per version (a partial unique index); every change of the primary
// runs under the resource lock (lockResource).
import type { Insertable, Kysely, Selectable, Transaction } from 'kysely';
import type { DB, VersionFilesTable } from '../../../core/db/schema.js';

export type VersionFileRow = Selectable<VersionFilesTable>;
type Executor = Kysely<DB> | Transaction<DB>;

/** Where a file's duplicate original lives (§2.4): null unless `duplicate_of_file_id` is set. */
export interface DuplicateColumns {
  duplicate_version_id: string | null;
  duplicate_resource_id: string | null;
}
export type VersionFileListRow = VersionFileRow & DuplicateColumns;

/**
 * The files of several versions in one query, in upload order, with the version and resource of each one's
 * duplicate original (two primary-key joins) so that `duplicateOf` costs no further query.
 */
export function listFilesOf(db: Executor, versionIds: string[]): Promise<VersionFileListRow[]> {
  if (versionIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('version_files')
    .leftJoin('version_files as original', 'original.id', 'version_files.duplicate_of_file_id')
    .leftJoin('resource_versions as original_version', 'original_version.id', 'original.version_id')
    .selectAll('version_files')
    .select([
      'original.version_id as duplicate_version_id',
      'original_version.resource_id as duplicate_resource_id',
    ])
    .where('version_files.version_id', 'in', versionIds)
    .orderBy('version_files.version_id')
    .orderBy('version_files.uploaded_at')
    .orderBy('version_files.id')
    .execute();
}

export const listFiles = (db: Executor, versionId: string) => listFilesOf(db, [versionId]);

export async function insertFile(db: Executor, row: Insertable<VersionFilesTable>): Promise<void> {
  await db.insertInto('version_files').values(row).execute();
}

export async function deleteFile(db: Executor, fileId: string): Promise<void> {
  await db.deleteFrom('version_files').where('id', '=', fileId).execute();
}

/** Makes `fileId` the version's only primary file: the old primary is cleared first (the unique index). */
export async function setPrimary(db: Executor, versionId: string, fileId: string): Promise<void> {
  await db
    .updateTable('version_files')
    .set({ is_primary: false })
    .where('version_id', '=', versionId)
    .where('id', '!=', fileId)
    .where('is_primary', '=', true)
    .execute();
  await db
    .updateTable('version_files')
    .set({ is_primary: true })
    .where('id', '=', fileId)
    .where('version_id', '=', versionId)
    .execute();
}
