import type { Insertable, Kysely, Selectable, Transaction } from 'kysely';
import { moveCounters, readCounterSum } from '../../core/db/counters.js';
import type { DB, ReportStatus, ReportsTable } from '../../core/db/schema.js';
import { REPORT_STATUSES } from './reports.states.js';

export type ReportRow = Selectable<ReportsTable>;
type Executor = Kysely<DB> | Transaction<DB>;

/** The `counters` row holding the number of reports in a status (moderation list totals). */
export const reportStatusCounter = (status: ReportStatus) => `reports.status.${status}`;

export const findReport = (db: Executor, id: string): Promise<ReportRow | undefined> =>
  db.selectFrom('reports').selectAll().where('id', '=', id).executeTakeFirst();

export async function insertReport(db: Executor, row: Insertable<ReportsTable>): Promise<void> {
  await db.insertInto('reports').values(row).execute();
}

/** Moves the per-status counters; call in the transaction that changes the reports. */
export async function moveStatusCounters(
  db: Executor,
  moves: Array<{ status: ReportStatus; delta: 1 | -1 }>,
): Promise<void> {
  await moveCounters(
    db,
    moves.map(({ status, delta }) => [reportStatusCounter(status), delta] as const),
  );
}

/** Reports in one status, or in every status, from the maintained counters (no count of the table). */
export async function readStatusTotal(db: Executor, status: ReportStatus | undefined): Promise<number> {
  return readCounterSum(db, (status === undefined ? REPORT_STATUSES : [status]).map(reportStatusCounter));
}

/** An open (PENDING or UNDER_REVIEW) report by this reporter about this user or resource, if any. */
export function findOpenReport(
  db: Executor,
  reporterId: string,
  target: { reportedUserId: string } | { resourceId: string },
): Promise<Pick<ReportRow, 'id'> | undefined> {
  let query = db
    .selectFrom('reports')
    .select('id')
    .where('reporter_id', '=', reporterId)
    .where('status', 'in', ['PENDING', 'UNDER_REVIEW']);
  query =
    'reportedUserId' in target
      ? query.where('reported_user_id', '=', target.reportedUserId)
      : query.where('resource_id', '=', target.resourceId);
  return query.executeTakeFirst();
}

export function listReportsOfReporter(
  db: Executor,
  reporterId: string,
  limit: number,
  offset: number,
): Promise<ReportRow[]> {
  return db
    .selectFrom('reports')
    .selectAll()
    .where('reporter_id', '=', reporterId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

/** A filtered count over the indexed reporter column: one person's reports, never the whole table. */
export async function countReportsOfReporter(db: Executor, reporterId: string): Promise<number> {
  const row = await db
    .selectFrom('reports')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('reporter_id', '=', reporterId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Deletes the report only while it is still PENDING; false when it is gone or has moved on. */
export async function deletePendingReport(db: Executor, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('reports')
    .where('id', '=', id)
    .where('status', '=', 'PENDING')
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export type ReportedResourceRow = Pick<
  Selectable<DB['resources']>,
  'id' | 'name' | 'slug' | 'type' | 'status' | 'owner_type' | 'owner_id'
>;

export const findReportedResource = (db: Executor, id: string): Promise<ReportedResourceRow | undefined> =>
  db
    .selectFrom('resources')
    .select(['id', 'name', 'slug', 'type', 'status', 'owner_type', 'owner_id'])
    .where('id', '=', id)
    .executeTakeFirst();
