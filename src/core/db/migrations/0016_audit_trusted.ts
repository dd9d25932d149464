import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/**
 * The audit log and trusted creators (spec/extensions.md §4). The log has no foreign keys: it outlives the
 * actors and subjects it names, and nothing may delete its rows by cascade. Each filter of GET /admin/audit has an
 * index ending in (at, id), the list's order, so a filtered page reads only its own rows.
 */
export function auditTrusted({ ts }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('audit_log')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('at', ts, (col) => col.notNull())
        .addColumn('actor_id', 'text')
        .addColumn('action', 'text', (col) => col.notNull())
        .addColumn('subject_kind', 'text', (col) => col.notNull())
        .addColumn('subject_id', 'text', (col) => col.notNull())
        .addColumn('before', 'text')
        .addColumn('after', 'text')
        .execute();
      await db.schema.createIndex('audit_log_at_idx').on('audit_log').columns(['at', 'id']).execute();
      await db.schema
        .createIndex('audit_log_actor_idx')
        .on('audit_log')
        .columns(['actor_id', 'at', 'id'])
        .where(sql.ref('actor_id'), 'is not', null)
        .execute();
      await db.schema
        .createIndex('audit_log_action_idx')
        .on('audit_log')
        .columns(['action', 'at', 'id'])
        .execute();
      await db.schema
        .createIndex('audit_log_subject_idx')
        .on('audit_log')
        .columns(['subject_kind', 'subject_id', 'at', 'id'])
        .execute();

      await db.schema
        .alterTable('users')
        .addColumn('trusted', 'boolean', (col) => col.notNull().defaultTo(false))
        .execute();
      // The version history tells an automatic approval (no moderator) from a moderator's.
      await db.schema
        .alterTable('version_moderation_events')
        .addColumn('automatic', 'boolean', (col) => col.notNull().defaultTo(false))
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('version_moderation_events').dropColumn('automatic').execute();
      await db.schema.alterTable('users').dropColumn('trusted').execute();
      await db.schema.dropTable('audit_log').execute();
    },
  };
}
