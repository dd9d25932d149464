// Row types as Kysely sees them; ../schema.ts gathers them into DB.
export type JobStatus = 'RUNNING' | 'OK' | 'FAILED';

/** The last run of each periodic job (core/jobs/scheduler.ts). */
export interface JobRunsTable {
  name: string;
  last_started_at: string | null;
  last_finished_at: string | null;
  last_status: JobStatus | null;
  last_error: string | null;
  run_count: number;
  failure_count: number;
}
