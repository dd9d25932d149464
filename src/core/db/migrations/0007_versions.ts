import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

// Resource versions, their files, download events and gallery images (DESIGN §8 "Versions", "Downloads").
// resources.latest_version_id (0004) is maintained by the versions module; it has no foreign key because SQLite
// cannot add one to an existing table, so deleting a version clears it in the same transaction.
export function versions({ ts }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('resource_versions')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('resource_id', 'text', (col) =>
          col.notNull().references('resources.id').onDelete('cascade'),
        )
        .addColumn('version_number', 'text', (col) => col.notNull())
        .addColumn('name', 'text')
        .addColumn('channel', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('downloads', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('submission_note', 'text')
        .addColumn('rejection_reason', 'text')
        .addColumn('created_at', ts, (col) => col.notNull())
        .addColumn('updated_at', ts, (col) => col.notNull())
        .addColumn('submitted_at', ts)
        .addColumn('approved_at', ts)
        // Last: up to 100,000 characters that most reads do not need (SQLite reads columns in order).
        .addColumn('changelog', 'text')
        // Version numbers are unique per resource: two "1.2.0" would make downloads and latest ambiguous.
        .addUniqueConstraint('resource_versions_number_key', ['resource_id', 'version_number'])
        .execute();
      await db.schema
        .createIndex('resource_versions_resource_status_created_idx')
        .on('resource_versions')
        .columns(['resource_id', 'status', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('resource_versions_resource_created_idx')
        .on('resource_versions')
        .columns(['resource_id', 'created_at', 'id'])
        .execute();

      await db.schema
        .createTable('version_game_versions')
        .addColumn('version_id', 'text', (col) =>
          col.notNull().references('resource_versions.id').onDelete('cascade'),
        )
        .addColumn('game_version_id', 'text', (col) =>
          col.notNull().references('game_versions.id').onDelete('cascade'),
        )
        .addPrimaryKeyConstraint('version_game_versions_pk', ['version_id', 'game_version_id'])
        .execute();
      await db.schema
        .createIndex('version_game_versions_game_version_idx')
        .on('version_game_versions')
        .columns(['game_version_id', 'version_id'])
        .execute();

      await db.schema
        .createTable('version_files')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('version_id', 'text', (col) =>
          col.notNull().references('resource_versions.id').onDelete('cascade'),
        )
        .addColumn('storage_key', 'text', (col) => col.notNull())
        .addColumn('file_name', 'text', (col) => col.notNull())
        .addColumn('display_name', 'text')
        .addColumn('file_size', 'bigint', (col) => col.notNull())
        .addColumn('file_type', 'text', (col) => col.notNull())
        .addColumn('content_type', 'text', (col) => col.notNull())
        .addColumn('sha256', 'text', (col) => col.notNull())
        .addColumn('sha1', 'text', (col) => col.notNull())
        .addColumn('is_primary', 'boolean', (col) => col.notNull())
        .addColumn('uploaded_at', ts, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('version_files_version_idx')
        .on('version_files')
        .columns(['version_id', 'uploaded_at', 'id'])
        .execute();
      // At most one primary file per version, whatever two concurrent requests do.
      await db.schema
        .createIndex('version_files_one_primary_idx')
        .on('version_files')
        .column('version_id')
        .unique()
        .where(sql.ref('is_primary'), '=', sql.lit(true))
        .execute();

      await db.schema
        .createTable('download_events')
        .addColumn('id', 'text', (col) => col.primaryKey())
        // FILE (…/download/:fileId and the one-file …/download) or VERSION (the ZIP).
        .addColumn('subject_type', 'text', (col) => col.notNull())
        .addColumn('subject_id', 'text', (col) => col.notNull())
        .addColumn('version_id', 'text', (col) =>
          col.notNull().references('resource_versions.id').onDelete('cascade'),
        )
        // downloadClientKey(ip): IPv4, or the IPv6 /64.
        .addColumn('client_key', 'text', (col) => col.notNull())
        // UTC day, 'YYYY-MM-DD'.
        .addColumn('day', 'text', (col) => col.notNull())
        .addColumn('ip', 'text', (col) => col.notNull())
        .addColumn('user_agent', 'text')
        .addColumn('user_id', 'text', (col) => col.references('users.id').onDelete('set null'))
        .addColumn('created_at', ts, (col) => col.notNull())
        // The dedup key: concurrent duplicates insert one row, so they count once.
        .addUniqueConstraint('download_events_dedup_key', ['subject_type', 'subject_id', 'client_key', 'day'])
        .execute();
      await db.schema
        .createIndex('download_events_version_idx')
        .on('download_events')
        .columns(['version_id', 'created_at'])
        .execute();
      await db.schema
        .createIndex('download_events_user_idx')
        .on('download_events')
        .column('user_id')
        .execute();

      await db.schema
        .createTable('version_moderation_events')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('version_id', 'text', (col) =>
          col.notNull().references('resource_versions.id').onDelete('cascade'),
        )
        .addColumn('action', 'text', (col) => col.notNull())
        .addColumn('from_status', 'text', (col) => col.notNull())
        .addColumn('to_status', 'text', (col) => col.notNull())
        .addColumn('reason', 'text')
        .addColumn('actor_id', 'text', (col) => col.references('users.id').onDelete('set null'))
        .addColumn('created_at', ts, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('version_moderation_events_version_idx')
        .on('version_moderation_events')
        .columns(['version_id', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('version_moderation_events_actor_idx')
        .on('version_moderation_events')
        .column('actor_id')
        .execute();

      await db.schema
        .createTable('gallery_images')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('resource_id', 'text', (col) =>
          col.notNull().references('resources.id').onDelete('cascade'),
        )
        .addColumn('storage_key', 'text', (col) => col.notNull())
        .addColumn('thumbnail_key', 'text', (col) => col.notNull())
        .addColumn('caption', 'text')
        .addColumn('alt_text', 'text')
        .addColumn('position', 'integer', (col) => col.notNull())
        .addColumn('created_at', ts, (col) => col.notNull())
        .addColumn('updated_at', ts, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('gallery_images_resource_position_idx')
        .on('gallery_images')
        .columns(['resource_id', 'position', 'id'])
        .execute();
    },
  };
}
