// Version file rows. At most one primary per version (a partial unique index); every change of the primary
// runs under the resource lock (lockResource).
import type { Insertable, Kysely, Selectable, Transaction } from 'kysely';
import type { DB, VersionFilesTable } from '../../../core/db/schema.js';

export type VersionFileRow = Selectable<VersionFilesTable>;
type Executor = Kysely<DB> | Transaction<DB>;

/** The files of several versions in one query, in upload order. */
export function listFilesOf(db: Executor, versionIds: string[]): Promise<VersionFileRow[]> {
  if (versionIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('version_files')
    .selectAll()
    .where('version_id', 'in', versionIds)
    .orderBy('version_id')
    .orderBy('uploaded_at')
    .orderBy('id')
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
