import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/**
 * Indexes for queue positions and moderation statistics (spec/extensions.md §4).
 *
 * A queue position is an index-only range count over (status, waiting since, id): resources already have
 * (status, created_at, id) and servers (status, status_updated_at, id); versions had no index led by status, so
 * the position of a pending version would scan every version. The statistics read the decisions of the last
 * 30 days by the time they were made, so each history table gets an index on created_at.
 */
export function moderationQueue(_context: MigrationContext) {
  const historyTables = [
    'resource_moderation_events',
    'version_moderation_events',
    'server_moderation_events',
    'report_events',
  ];
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('resource_versions_status_submitted_idx')
        .on('resource_versions')
        .columns(['status', 'submitted_at', 'id'])
        .execute();
      for (const table of historyTables) {
        await db.schema.createIndex(`${table}_created_idx`).on(table).column('created_at').execute();
      }
    },
    async down(db: Kysely<unknown>): Promise<void> {
      for (const table of historyTables) await db.schema.dropIndex(`${table}_created_idx`).execute();
      await db.schema.dropIndex('resource_versions_status_submitted_idx').execute();
    },
  };
}
