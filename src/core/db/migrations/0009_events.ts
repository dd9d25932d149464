import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/**
 * The event log (written in the same transaction as each change), webhooks and their deliveries, and the
 * resources' first-approval time the Atom feeds sort by (spec/extensions.md §1). Events carry the ids of what their subject belongs to, so GET /events filters and the
 * webhook fan-out find them by index; deliveries are the durable work queue of the webhook sender.
 */
export function events({ ts }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('events')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('type', 'text', (col) => col.notNull())
        .addColumn('created_at', ts, (col) => col.notNull())
        // No foreign keys: the log outlives the users and objects it names.
        .addColumn('actor_id', 'text')
        .addColumn('actor_username', 'text')
        .addColumn('subject_kind', 'text', (col) => col.notNull())
        .addColumn('subject_id', 'text', (col) => col.notNull())
        .addColumn('data', 'text', (col) => col.notNull())
        .addColumn('resource_id', 'text')
        .addColumn('version_id', 'text')
        .addColumn('server_id', 'text')
        .addColumn('team_id', 'text')
        .addColumn('user_id', 'text')
        .addColumn('audience', 'text', (col) => col.notNull())
        .addColumn('audience_user_id', 'text')
        .addColumn('subject_public', 'boolean', (col) => col.notNull().defaultTo(false))
        .addColumn('dispatched_at', ts)
        .execute();
      for (const column of ['resource_id', 'server_id', 'team_id', 'user_id']) {
        await db.schema
          .createIndex(`events_${column}_idx`)
          .on('events')
          .columns([column, 'id'])
          .where(sql.ref(column), 'is not', null)
          .execute();
      }
      await db.schema.createIndex('events_created_at_idx').on('events').column('created_at').execute();
      // The fan-out's queue: only events not yet turned into deliveries.
      await db.schema
        .createIndex('events_undispatched_idx')
        .on('events')
        .column('id')
        .where(sql.ref('dispatched_at'), 'is', null)
        .execute();

      await db.schema
        .createTable('webhooks')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('created_by', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
        .addColumn('scope_kind', 'text', (col) => col.notNull())
        .addColumn('scope_id', 'text')
        .addColumn('url', 'text', (col) => col.notNull())
        .addColumn('events', 'text', (col) => col.notNull())
        .addColumn('description', 'text')
        .addColumn('format', 'text', (col) => col.notNull())
        .addColumn('active', 'boolean', (col) => col.notNull())
        .addColumn('disabled_reason', 'text')
        .addColumn('secret_encrypted', 'text', (col) => col.notNull())
        .addColumn('previous_secret_encrypted', 'text')
        .addColumn('previous_secret_expires_at', ts)
        .addColumn('consecutive_failures', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('busy_until', ts)
        .addColumn('created_at', ts, (col) => col.notNull())
        .addColumn('updated_at', ts, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('webhooks_scope_idx')
        .on('webhooks')
        .columns(['scope_kind', 'scope_id', 'created_at'])
        .execute();
      await db.schema.createIndex('webhooks_created_by_idx').on('webhooks').column('created_by').execute();

      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('webhook_id', 'text', (col) => col.notNull().references('webhooks.id').onDelete('cascade'))
        .addColumn('event_id', 'text', (col) => col.notNull().references('events.id').onDelete('cascade'))
        .addColumn('event_type', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('next_attempt_at', ts)
        .addColumn('last_attempt_at', ts)
        .addColumn('last_response_status', 'integer')
        .addColumn('last_response_body', 'text')
        .addColumn('last_error', 'text')
        .addColumn('duration_ms', 'integer')
        .addColumn('redelivery_of', 'text')
        .addColumn('created_at', ts, (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_webhook_idx')
        .on('webhook_deliveries')
        .columns(['webhook_id', 'status', 'event_id'])
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_list_idx')
        .on('webhook_deliveries')
        .columns(['webhook_id', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_due_idx')
        .on('webhook_deliveries')
        .columns(['next_attempt_at', 'webhook_id'])
        .where(sql.ref('status'), '=', 'PENDING')
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_event_idx')
        .on('webhook_deliveries')
        .column('event_id')
        .execute();
      // The fan-out delivers each event to each webhook once; redeliveries are extra rows.
      await db.schema
        .createIndex('webhook_deliveries_once_idx')
        .on('webhook_deliveries')
        .columns(['webhook_id', 'event_id'])
        .unique()
        .where(sql.ref('redelivery_of'), 'is', null)
        .execute();

      // Feeds (§1.3) list resources newest approval first: the first APPROVE, kept on the row from now on and
      // filled in for the resources approved before (the creation time when no approval was recorded).
      await db.schema.alterTable('resources').addColumn('approved_at', ts).execute();
      await sql`
        update resources set approved_at = coalesce(
          (select min(e.created_at) from resource_moderation_events e
            where e.resource_id = resources.id and e.action = 'APPROVE'),
          case when status = 'APPROVED' then created_at end)
      `.execute(db);
      await db.schema
        .createIndex('resources_approved_idx')
        .on('resources')
        .columns(['status', 'approved_at', 'id'])
        .execute();
      await db.schema
        .createIndex('resource_versions_feed_idx')
        .on('resource_versions')
        .columns(['resource_id', 'status', 'approved_at', 'id'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('resource_versions_feed_idx').execute();
      await db.schema.dropIndex('resources_approved_idx').execute();
      await db.schema.alterTable('resources').dropColumn('approved_at').execute();
      await db.schema.dropTable('webhook_deliveries').execute();
      await db.schema.dropTable('webhooks').execute();
      await db.schema.dropTable('events').execute();
    },
  };
}
