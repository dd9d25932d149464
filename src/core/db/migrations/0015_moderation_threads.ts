import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/**
 * Moderation threads between owner sides and moderators (spec/extensions.md §4): one table of messages, each
 * under its resource or its server, so deleting the subject removes its thread by cascade.
 */
export function moderationThreads({ ts }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('moderation_messages')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('resource_id', 'text', (col) => col.references('resources.id').onDelete('cascade'))
        .addColumn('server_id', 'text', (col) => col.references('servers.id').onDelete('cascade'))
        // The conversation outlives a deleted version or account: the reference is cleared, the text stays.
        .addColumn('version_id', 'text', (col) => col.references('resource_versions.id').onDelete('set null'))
        .addColumn('author_id', 'text', (col) => col.references('users.id').onDelete('set null'))
        .addColumn('body', 'text', (col) => col.notNull())
        .addColumn('internal', 'boolean', (col) => col.notNull())
        .addColumn('automatic', 'boolean', (col) => col.notNull())
        .addColumn('created_at', ts, (col) => col.notNull())
        .execute();
      // A thread reads (and counts) its messages oldest first.
      await db.schema
        .createIndex('moderation_messages_resource_idx')
        .on('moderation_messages')
        .columns(['resource_id', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('moderation_messages_server_idx')
        .on('moderation_messages')
        .columns(['server_id', 'created_at', 'id'])
        .execute();
      // The foreign keys the cascades and set-nulls walk.
      await db.schema
        .createIndex('moderation_messages_version_idx')
        .on('moderation_messages')
        .column('version_id')
        .execute();
      await db.schema
        .createIndex('moderation_messages_author_idx')
        .on('moderation_messages')
        .column('author_id')
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('moderation_messages').execute();
    },
  };
}
