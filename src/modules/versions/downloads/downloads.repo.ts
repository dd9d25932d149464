// Reads behind the download routes (prepared: they are the hottest reads of the module) and the counting
// writes (DESIGN §8 "Downloads", core/files/download-day.ts).
import type { Insertable, Kysely, Transaction } from 'kysely';
import type { DialectName } from '../../../core/db/database.js';
import { prepared } from '../../../core/db/prepared.js';
import type {
  DB,
  DownloadEventsTable,
  ResourceStatus,
  VersionStatusColumn,
} from '../../../core/db/schema.js';
import type { FileScanStatus } from '../../../core/db/schema/versions.js';

type Executor = Kysely<DB> | Transaction<DB>;

/** One file with what deciding on its download needs: the resource's visibility and the version's status. */
export interface FileTargetRow {
  resource_status: ResourceStatus;
  owner_type: 'USER' | 'TEAM';
  owner_id: string;
  version_status: VersionStatusColumn;
  storage_key: string;
  file_name: string;
  /** INFECTED files are never served (spec/extensions.md §2.4). */
  scan_status: FileScanStatus;
  /** The download event of this client and day, when one was already counted. */
  counted_id: string | null;
}

// One statement answers the whole hot path: the file, its parents' status and whether this client was already
// counted today (the common case for repeated downloads, which then never open a write transaction).
const fileTarget = prepared<FileTargetRow, [string, string, string, string, string]>(
  5,
  (db, _dialect, fileId, versionId, resourceId, clientKey, day) =>
    db
      .selectFrom('version_files')
      .innerJoin('resource_versions', 'resource_versions.id', 'version_files.version_id')
      .innerJoin('resources', 'resources.id', 'resource_versions.resource_id')
      .leftJoin('download_events', (join) =>
        join
          .on('download_events.subject_type', '=', 'FILE')
          .onRef('download_events.subject_id', '=', 'version_files.id')
          .on('download_events.client_key', '=', clientKey!)
          .on('download_events.day', '=', day!),
      )
      .select([
        'resources.status as resource_status',
        'resources.owner_type',
        'resources.owner_id',
        'resource_versions.status as version_status',
        'version_files.storage_key',
        'version_files.file_name',
        'version_files.scan_status',
        'download_events.id as counted_id',
      ])
      .where('version_files.id', '=', fileId!)
      .where('version_files.version_id', '=', versionId!)
      .where('resource_versions.resource_id', '=', resourceId!),
);

/** The file, only when it belongs to the version and the version to the resource (DESIGN §11). */
export async function findFileTarget(
  db: Kysely<DB>,
  dialect: DialectName,
  ids: { resourceId: string; versionId: string; fileId: string },
  client: { clientKey: string; day: string },
): Promise<FileTargetRow | undefined> {
  const rows = await fileTarget(
    db,
    dialect,
    ids.fileId,
    ids.versionId,
    ids.resourceId,
    client.clientKey,
    client.day,
  );
  return rows[0];
}

const counted = prepared<{ id: string }, [string, string, string, string]>(
  4,
  (db, _dialect, subjectType, subjectId, clientKey, day) =>
    db
      .selectFrom('download_events')
      .select('id')
      .where('subject_type', '=', subjectType as 'FILE' | 'VERSION')
      .where('subject_id', '=', subjectId!)
      .where('client_key', '=', clientKey!)
      .where('day', '=', day!),
);

/** A cheap read first: repeated downloads (the common case) never open a write transaction. */
export async function alreadyCounted(
  db: Kysely<DB>,
  dialect: DialectName,
  key: Pick<DownloadEventsTable, 'subject_type' | 'subject_id' | 'client_key' | 'day'>,
): Promise<boolean> {
  return (await counted(db, dialect, key.subject_type, key.subject_id, key.client_key, key.day)).length > 0;
}

/** Inserts the event unless its dedup key exists; true when this call added it (and must count it). */
export async function insertDownloadEvent(
  db: Executor,
  row: Insertable<DownloadEventsTable>,
): Promise<boolean> {
  const result = await db
    .insertInto('download_events')
    .values(row)
    .onConflict((oc) => oc.columns(['subject_type', 'subject_id', 'client_key', 'day']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** The version's and the resource's counters, in the transaction of the event. */
export async function incrementDownloads(db: Executor, resourceId: string, versionId: string): Promise<void> {
  await db
    .updateTable('resource_versions')
    .set((eb) => ({ downloads: eb('downloads', '+', 1) }))
    .where('id', '=', versionId)
    .execute();
  await db
    .updateTable('resources')
    .set((eb) => ({ downloads: eb('downloads', '+', 1) }))
    .where('id', '=', resourceId)
    .execute();
}
