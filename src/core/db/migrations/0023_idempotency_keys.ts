import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/**
 * Idempotency-Key answers (issue 12): one row per (caller, key), claimed when the first request starts and
 * completed with its 2xx answer (sealed: an API-key creation answer holds the plaintext key). Purged after 24 h.
 */
export function idempotencyKeys({ ts }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('idempotency_keys')
        .addColumn('caller', 'text', (col) => col.notNull())
        .addColumn('key', 'text', (col) => col.notNull())
        .addColumn('fingerprint', 'text', (col) => col.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('location', 'text')
        .addColumn('body_sealed', 'text')
        .addColumn('created_at', ts, (col) => col.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['caller', 'key'])
        .execute();
      // The purge job deletes by age.
      await db.schema
        .createIndex('idempotency_keys_created_idx')
        .on('idempotency_keys')
        .column('created_at')
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('idempotency_keys').execute();
    },
  };
}
