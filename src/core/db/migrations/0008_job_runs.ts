import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/**
 * One row per periodic job: when it last started and finished, how that run ended, and how often it ran and
 * failed. The scheduler claims a run by moving last_started_at forward with a conditional update, so a job is due
 * from what the database says, not from how long this process has been up.
 */
export function jobRuns({ ts }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('job_runs')
        .addColumn('name', 'text', (col) => col.primaryKey())
        .addColumn('last_started_at', ts)
        .addColumn('last_finished_at', ts)
        // 'RUNNING' | 'OK' | 'FAILED'
        .addColumn('last_status', 'text')
        .addColumn('last_error', 'text')
        .addColumn('run_count', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('failure_count', 'integer', (col) => col.notNull().defaultTo(0))
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('job_runs').execute();
    },
  };
}
