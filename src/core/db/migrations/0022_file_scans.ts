import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/**
 * Malware scanning (spec/extensions.md §2.4). The file row is the durable work item: a file uploaded while
 * scanning is configured is PENDING in the same transaction as its insert, and the scan job picks PENDING and due
 * ERROR rows by (scan_status, scan_next_at).
 */
export function fileScans(context: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('version_files')
        .addColumn('scan_status', 'text', (col) => col.notNull().defaultTo('NOT_SCANNED'))
        .execute();
      await db.schema.alterTable('version_files').addColumn('scan_signature', 'text').execute();
      await db.schema.alterTable('version_files').addColumn('scanned_at', context.ts).execute();
      await db.schema
        .alterTable('version_files')
        .addColumn('scan_attempts', 'integer', (col) => col.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('version_files').addColumn('scan_next_at', context.ts).execute();
      await db.schema
        .createIndex('version_files_scan_due_idx')
        .on('version_files')
        .columns(['scan_status', 'scan_next_at'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('version_files_scan_due_idx').execute();
      for (const column of ['scan_next_at', 'scan_attempts', 'scanned_at', 'scan_signature', 'scan_status']) {
        await db.schema.alterTable('version_files').dropColumn(column).execute();
      }
    },
  };
}
