import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

// Frozen copy of the columns that hold storage keys (core/storage/references.repo.ts has the live list): the
// storage sweep asks, page by page, which listed keys any of them holds, so each needs an index.
const STORAGE_KEY_COLUMNS: [string, string][] = [
  ['users', 'image_key'],
  ['users', 'banner_key'],
  ['teams', 'logo_key'],
  ['teams', 'banner_key'],
  ['resources', 'icon_key'],
  ['resources', 'banner_key'],
  ['servers', 'logo_key'],
  ['servers', 'banner_key'],
  ['version_files', 'storage_key'],
  ['gallery_images', 'storage_key'],
  ['gallery_images', 'thumbnail_key'],
  ['description_images', 'storage_key'],
];

/**
 * One row per periodic job: when it last started and finished, how that run ended, and how often it ran and
 * failed. The scheduler claims a run by moving last_started_at forward with a conditional update, so a job is due
 * from what the database says, not from how long this process has been up.
 */
export function maintenance({ ts }: MigrationContext) {
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
      for (const [table, column] of STORAGE_KEY_COLUMNS) {
        await db.schema.createIndex(`${table}_${column}_idx`).on(table).column(column).execute();
      }
    },
    async down(db: Kysely<unknown>): Promise<void> {
      for (const [table, column] of STORAGE_KEY_COLUMNS) {
        await db.schema.dropIndex(`${table}_${column}_idx`).execute();
      }
      await db.schema.dropTable('job_runs').execute();
    },
  };
}
