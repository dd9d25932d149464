import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

// Frozen copy: a migration must not change meaning when the application's list changes later.
const REPORT_STATUSES = ['PENDING', 'UNDER_REVIEW', 'RESOLVED', 'DISMISSED'];

export function reportsBadges({ ts }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('reports')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('reporter_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
        // 'USER' | 'RESOURCE'
        .addColumn('target_type', 'text', (col) => col.notNull())
        .addColumn('reported_user_id', 'text', (col) => col.references('users.id').onDelete('cascade'))
        // No foreign key: a report outlives the resource it names, so deleting the resource does not erase
        // the complaints about it.
        .addColumn('resource_id', 'text')
        // The resource's type when it was reported.
        .addColumn('resource_type', 'text')
        .addColumn('reason', 'text', (col) => col.notNull())
        .addColumn('description', 'text')
        .addColumn('evidence', 'text')
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('resolution', 'text')
        .addColumn('moderator_notes', 'text')
        // 'WARNING' | 'SUSPENSION' | 'BAN' | 'NONE', set when a user report is resolved.
        .addColumn('user_action', 'text')
        .addColumn('suspension_days', 'integer')
        .addColumn('moderated_by', 'text', (col) => col.references('users.id').onDelete('set null'))
        .addColumn('moderated_at', ts)
        .addColumn('created_at', ts, (col) => col.notNull())
        .addColumn('updated_at', ts, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('reports_status_created_idx')
        .on('reports')
        .columns(['status', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('reports_created_idx')
        .on('reports')
        .columns(['created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('reports_reporter_created_idx')
        .on('reports')
        .columns(['reporter_id', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('reports_reported_user_idx')
        .on('reports')
        .column('reported_user_id')
        .execute();
      await db.schema.createIndex('reports_resource_idx').on('reports').column('resource_id').execute();
      await db.schema.createIndex('reports_moderated_by_idx').on('reports').column('moderated_by').execute();
      // One open report per reporter and target, even when the same report is sent twice at once. The target
      // column of the other kind is null, and nulls never collide, so each index only constrains its own kind.
      const open = sql<boolean>`status in ('PENDING', 'UNDER_REVIEW')`;
      await db.schema
        .createIndex('reports_one_open_user_idx')
        .on('reports')
        .columns(['reporter_id', 'reported_user_id'])
        .unique()
        .where(open)
        .execute();
      await db.schema
        .createIndex('reports_one_open_resource_idx')
        .on('reports')
        .columns(['reporter_id', 'resource_id'])
        .unique()
        .where(open)
        .execute();

      await db.schema
        .createTable('report_events')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('report_id', 'text', (col) => col.notNull().references('reports.id').onDelete('cascade'))
        .addColumn('action', 'text', (col) => col.notNull())
        .addColumn('from_status', 'text', (col) => col.notNull())
        .addColumn('to_status', 'text', (col) => col.notNull())
        .addColumn('note', 'text')
        .addColumn('user_action', 'text')
        .addColumn('moderator_id', 'text', (col) => col.references('users.id').onDelete('set null'))
        .addColumn('created_at', ts, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('report_events_report_idx')
        .on('report_events')
        .columns(['report_id', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('report_events_moderator_idx')
        .on('report_events')
        .column('moderator_id')
        .execute();

      // Reports per status, so the moderation list's total never counts the table.
      for (const status of REPORT_STATUSES) {
        await sql`insert into counters (name, value) values (${`reports.status.${status}`}, 0)`.execute(db);
      }

      await db.schema
        .createTable('badges')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('slug', 'text', (col) => col.notNull().unique())
        .addColumn('description', 'text')
        .addColumn('icon_url', 'text')
        .addColumn('color', 'text')
        .addColumn('is_active', 'boolean', (col) => col.notNull())
        .addColumn('awarded_count', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('created_at', ts, (col) => col.notNull())
        .addColumn('updated_at', ts, (col) => col.notNull())
        .execute();
      await db.schema.createIndex('badges_name_idx').on('badges').columns(['name', 'id']).execute();
      await db.schema
        .createIndex('badges_active_name_idx')
        .on('badges')
        .columns(['is_active', 'name', 'id'])
        .execute();

      await db.schema
        .createTable('user_badges')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
        // Deleting a badge takes it away from everyone who had it.
        .addColumn('badge_id', 'text', (col) => col.notNull().references('badges.id').onDelete('cascade'))
        .addColumn('awarded_by', 'text', (col) => col.references('users.id').onDelete('set null'))
        .addColumn('reason', 'text')
        .addColumn('awarded_at', ts, (col) => col.notNull())
        .addUniqueConstraint('user_badges_pair_key', ['user_id', 'badge_id'])
        .execute();
      // The pair key serves (user, badge) lookups; this one the profile order, newest award first.
      await db.schema
        .createIndex('user_badges_user_awarded_idx')
        .on('user_badges')
        .columns(['user_id', 'awarded_at', 'id'])
        .execute();
      await db.schema.createIndex('user_badges_badge_idx').on('user_badges').column('badge_id').execute();
      await db.schema
        .createIndex('user_badges_awarded_by_idx')
        .on('user_badges')
        .column('awarded_by')
        .execute();
    },
  };
}
