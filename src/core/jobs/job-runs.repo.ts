// Kysely queries on job_runs: the record of each periodic job's last run.
import type { Kysely } from 'kysely';
import type { DB, JobRunsTable } from '../db/schema.js';

/** Longest error message kept for an operator; a stack or a huge driver message is cut. */
const MAX_ERROR_LENGTH = 2000;

export type JobRunRow = JobRunsTable;

/**
 * Claims a run of `name` at `now`: moves last_started_at forward only when the last start is at or before
 * `dueBefore` (or there is none). Two processes racing for the same run both issue this update; exactly one
 * changes the row. `dueBefore` undefined claims unconditionally (an operator's `jobs run`).
 */
export async function claimRun(
  db: Kysely<DB>,
  name: string,
  now: string,
  dueBefore: string | undefined,
): Promise<boolean> {
  await db
    .insertInto('job_runs')
    .values({ name, run_count: 0, failure_count: 0 })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  let update = db
    .updateTable('job_runs')
    .set((eb) => ({
      last_started_at: now,
      last_status: 'RUNNING',
      run_count: eb('run_count', '+', 1),
    }))
    .where('name', '=', name);
  if (dueBefore !== undefined) {
    update = update.where((eb) =>
      eb.or([eb('last_started_at', 'is', null), eb('last_started_at', '<=', dueBefore)]),
    );
  }
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function recordFinish(
  db: Kysely<DB>,
  name: string,
  finishedAt: string,
  error: string | undefined,
): Promise<void> {
  await db
    .updateTable('job_runs')
    .set((eb) => ({
      last_finished_at: finishedAt,
      last_status: error === undefined ? 'OK' : 'FAILED',
      last_error: error === undefined ? null : error.slice(0, MAX_ERROR_LENGTH),
      failure_count: error === undefined ? eb.ref('failure_count') : eb('failure_count', '+', 1),
    }))
    .where('name', '=', name)
    .execute();
}

export async function readJobRuns(db: Kysely<DB>): Promise<JobRunRow[]> {
  return db.selectFrom('job_runs').selectAll().orderBy('name').execute();
}

export async function readLastStart(db: Kysely<DB>, name: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('job_runs')
    .select('last_started_at')
    .where('name', '=', name)
    .executeTakeFirst();
  return row?.last_started_at ?? undefined;
}
