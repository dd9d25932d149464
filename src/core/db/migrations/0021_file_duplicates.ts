import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/**
 * The earlier file of another owner's resource with the same SHA-512 (spec/extensions.md §2.4). A file
 * that disappears clears the mark: the duplicate then stands on its own.
 */
export function fileDuplicates(_context: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('version_files')
        .addColumn('duplicate_of_file_id', 'text', (col) =>
          col.references('version_files.id').onDelete('set null'),
        )
        .execute();
      await db.schema
        .createIndex('version_files_duplicate_of_idx')
        .on('version_files')
        .column('duplicate_of_file_id')
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('version_files_duplicate_of_idx').execute();
      await db.schema.alterTable('version_files').dropColumn('duplicate_of_file_id').execute();
    },
  };
}
