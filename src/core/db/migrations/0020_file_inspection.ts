import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/**
 * What inspection found in an uploaded archive (spec/extensions.md §2.3), as the JSON of the file object's
 * `inspection`; null for files stored before inspection existed.
 */
export function fileInspection(_context: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('version_files').addColumn('inspection', 'text').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('version_files').dropColumn('inspection').execute();
    },
  };
}
