import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
import type { DB, ReportEventsTable, ReportStatus, ReportsTable } from '../../../core/db/schema.js';
import type { ReportRow } from '../reports.repo.js';

type Executor = Kysely<DB> | Transaction<DB>;

/** A report with its reporter, reported user and resource, read in one joined query. */
export interface ModerationRow extends ReportRow {
  reporter_username: string;
  reporter_display_name: string | null;
  reporter_image_key: string | null;
  reported_username: string | null;
  reported_display_name: string | null;
  reported_image_key: string | null;
  current_resource_id: string | null;
  current_resource_name: string | null;
  current_resource_slug: string | null;
  current_resource_type: string | null;
  current_resource_status: string | null;
  current_resource_owner_type: 'USER' | 'TEAM' | null;
  current_resource_owner_id: string | null;
}

export interface ModerationFilter {
  status?: ReportStatus;
  order: 'newest' | 'oldest';
}

function withParties(db: Executor) {
  return db
    .selectFrom('reports')
    .innerJoin('users as reporter', 'reporter.id', 'reports.reporter_id')
    .leftJoin('users as reported', 'reported.id', 'reports.reported_user_id')
    .leftJoin('resources', 'resources.id', 'reports.resource_id')
    .selectAll('reports')
    .select([
      'reporter.username as reporter_username',
      'reporter.display_name as reporter_display_name',
      'reporter.image_key as reporter_image_key',
      'reported.username as reported_username',
      'reported.display_name as reported_display_name',
      'reported.image_key as reported_image_key',
      'resources.id as current_resource_id',
      'resources.name as current_resource_name',
      'resources.slug as current_resource_slug',
      'resources.type as current_resource_type',
      'resources.status as current_resource_status',
      'resources.owner_type as current_resource_owner_type',
      'resources.owner_id as current_resource_owner_id',
    ]);
}

export function listForModeration(
  db: Executor,
  filter: ModerationFilter,
  limit: number,
  offset: number,
): Promise<ModerationRow[]> {
  let query = withParties(db);
  if (filter.status !== undefined) query = query.where('reports.status', '=', filter.status);
  const direction = filter.order === 'oldest' ? 'asc' : 'desc';
  return query
    .orderBy('reports.created_at', direction)
    .orderBy('reports.id', direction)
    .limit(limit)
    .offset(offset)
    .execute();
}

export const findModerationRow = (db: Executor, id: string): Promise<ModerationRow | undefined> =>
  withParties(db).where('reports.id', '=', id).executeTakeFirst();

/** Reports against a user other than `exceptReportId`: a filtered count over the indexed column. */
export async function countReportsAgainst(
  db: Executor,
  userId: string,
  exceptReportId: string,
): Promise<number> {
  const row = await db
    .selectFrom('reports')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('reported_user_id', '=', userId)
    .where('id', '!=', exceptReportId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export type ReportEventRow = Selectable<ReportEventsTable> & { moderator_username: string | null };

export function listEvents(db: Executor, reportId: string): Promise<ReportEventRow[]> {
  return db
    .selectFrom('report_events')
    .leftJoin('users', 'users.id', 'report_events.moderator_id')
    .selectAll('report_events')
    .select('users.username as moderator_username')
    .where('report_events.report_id', '=', reportId)
    .orderBy('report_events.created_at')
    .orderBy('report_events.id')
    .execute();
}

export async function insertEvent(db: Executor, row: Insertable<ReportEventsTable>): Promise<void> {
  await db.insertInto('report_events').values(row).execute();
}

/**
 * Applies a moderation decision only while the report is still in `from`: of two moderators deciding at the
 * same moment, exactly one wins and the other gets the 409 of the status the winner left.
 */
export async function moveReportStatus(
  db: Executor,
  id: string,
  from: ReportStatus,
  changes: Updateable<ReportsTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('reports')
    .set(changes)
    .where('id', '=', id)
    .where('status', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes a report (its history cascades); the status it had, or undefined when it was already gone. */
export async function deleteReport(db: Executor, id: string): Promise<ReportStatus | undefined> {
  const row = await db.deleteFrom('reports').where('id', '=', id).returning('status').executeTakeFirst();
  return row?.status;
}

export async function findTeamName(db: Executor, teamId: string): Promise<string | undefined> {
  const row = await db.selectFrom('teams').select('name').where('id', '=', teamId).executeTakeFirst();
  return row?.name;
}
