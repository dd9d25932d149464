import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/**
 * SHA-512 beside SHA-1 and SHA-256 (spec/extensions.md §2.1), and one index per algorithm for the lookups by
 * hash. Files stored before this migration have no SHA-512 (null) until the backfill job reads them once.
 */
export function fileHashes(_context: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('version_files').addColumn('sha512', 'text').execute();
      for (const algorithm of ['sha1', 'sha256', 'sha512']) {
        await db.schema
          .createIndex(`version_files_${algorithm}_idx`)
          .on('version_files')
          .column(algorithm)
          .execute();
      }
    },
    async down(db: Kysely<unknown>): Promise<void> {
      for (const algorithm of ['sha1', 'sha256', 'sha512']) {
        await db.schema.dropIndex(`version_files_${algorithm}_idx`).execute();
      }
      await db.schema.alterTable('version_files').dropColumn('sha512').execute();
    },
  };
}
