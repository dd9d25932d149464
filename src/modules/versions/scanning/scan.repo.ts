// The scan job's queries (spec/extensions.md §2.4). The version_files row is the work item: PENDING since its
// upload (same transaction), or ERROR with a retry time. A claim pushes scan_next_at out by a lease so that no
// other run takes the file while it is being scanned; a process that dies mid-scan leaves it to be claimed again
// after the lease. Results are written only while the file is still PENDING or ERROR.
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { DialectName } from '../../../core/db/database.js';
import type { DB } from '../../../core/db/schema.js';

export interface ClaimedFile {
  id: string;
  version_id: string;
  storage_key: string;
  scan_attempts: number;
}

/** Takes up to `limit` due files and leases them until `leaseUntil` (PostgreSQL: rows others hold are skipped). */
export function claimDueFiles(
  db: Kysely<DB>,
  dialect: DialectName,
  now: string,
  leaseUntil: string,
  limit: number,
): Promise<ClaimedFile[]> {
  return db.transaction().execute(async (trx) => {
    const due = await trx
      .selectFrom('version_files')
      .select(['id', 'version_id', 'storage_key', 'scan_attempts'])
      .where((eb) =>
        eb.or([
          eb.and([
            eb('scan_status', '=', 'PENDING'),
            eb.or([eb('scan_next_at', 'is', null), eb('scan_next_at', '<=', now)]),
          ]),
          // An ERROR without a next time (TOO_LARGE) is final.
          eb.and([eb('scan_status', '=', 'ERROR'), eb('scan_next_at', '<=', now)]),
        ]),
      )
      .orderBy('uploaded_at')
      .limit(limit)
      .$if(dialect === 'postgres', (query) => query.modifyEnd(sql`for update skip locked`))
      .execute();
    if (due.length === 0) return [];
    await trx
      .updateTable('version_files')
      .set({ scan_next_at: leaseUntil })
      .where(
        'id',
        'in',
        due.map((row) => row.id),
      )
      .execute();
    return due.map((row) => ({ ...row, scan_attempts: Number(row.scan_attempts) }));
  });
}

/** What the INFECTED event and the auto-approval need: the file's resource, version and name. */
export async function findScannedFile(trx: Transaction<DB>, fileId: string) {
  return trx
    .selectFrom('version_files')
    .innerJoin('resource_versions', 'resource_versions.id', 'version_files.version_id')
    .select([
      'version_files.id',
      'version_files.file_name',
      'version_files.sha256',
      'resource_versions.id as version_id',
      'resource_versions.resource_id',
      'resource_versions.status as version_status',
    ])
    .where('version_files.id', '=', fileId)
    .where('version_files.scan_status', 'in', ['PENDING', 'ERROR'])
    .executeTakeFirst();
}

export interface ScanResultColumns {
  scan_status: 'CLEAN' | 'INFECTED' | 'ERROR';
  /** The signature (INFECTED) or the reason (ERROR). */
  scan_signature: string | null;
  scanned_at: string;
  scan_next_at: string | null;
}

/** Writes a scan's outcome while the file is still waiting for one; false when it was deleted meanwhile. */
export async function recordScanResult(
  db: Kysely<DB> | Transaction<DB>,
  fileId: string,
  result: ScanResultColumns,
): Promise<boolean> {
  const updated = await db
    .updateTable('version_files')
    .set((eb) => ({ ...result, scan_attempts: eb('scan_attempts', '+', 1) }))
    .where('id', '=', fileId)
    .where('scan_status', 'in', ['PENDING', 'ERROR'])
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** Who vouched for the version's current submission: the actor of its last SUBMIT or RESUBMIT. */
export async function findSubmitterId(trx: Transaction<DB>, versionId: string): Promise<string | null> {
  const row = await trx
    .selectFrom('version_moderation_events')
    .select('actor_id')
    .where('version_id', '=', versionId)
    .where('action', 'in', ['SUBMIT', 'RESUBMIT'])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.actor_id ?? null;
}
