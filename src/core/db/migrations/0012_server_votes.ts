import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/**
 * Server votes, monthly counters and Votifier settings (spec/extensions.md §3). A vote row is also the durable
 * work item of its Votifier delivery (delivery_* columns), written in the vote's own transaction.
 */
export function serverVotes({ ts }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('servers')
        .addColumn('vote_count', 'integer', (col) => col.notNull().defaultTo(0))
        .execute();
      // 'YYYY-MM' (UTC) the vote_count belongs to; null until the first vote.
      await db.schema.alterTable('servers').addColumn('vote_month', 'text').execute();
      await db.schema
        .alterTable('servers')
        .addColumn('total_votes', 'integer', (col) => col.notNull().defaultTo(0))
        .execute();
      // sort=votes, ending in the same tie-breakers as sort=players.
      await db.schema
        .createIndex('servers_status_votes_idx')
        .on('servers')
        .columns(['status', 'vote_count desc', 'created_at', 'id'])
        .execute();

      await db.schema
        .createTable('server_votes')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('server_id', 'text', (col) => col.notNull().references('servers.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
        // The in-game name the voter entered (what Votifier delivers), not the account's username.
        .addColumn('username', 'text', (col) => col.notNull())
        // IPv4 address or IPv6 /64 prefix: the per-client cooldown key. Both addresses are forgotten (null) once
        // the vote is older than the forget-voter-addresses job's age and no delivery needs them.
        .addColumn('client_key', 'text')
        // The voter's address as seen, sent in the Votifier payload; never shown.
        .addColumn('address', 'text')
        .addColumn('created_at', ts, (col) => col.notNull())
        // PENDING | SUCCEEDED | FAILED; null when the server had no enabled Votifier at the time of the vote.
        .addColumn('delivery_status', 'text')
        .addColumn('delivery_attempts', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('delivery_last_error', 'text')
        // When the next attempt is due; while an attempt runs, the end of its lease.
        .addColumn('delivery_next_at', ts)
        .addColumn('delivery_last_attempt_at', ts)
        .execute();
      await db.schema
        .createIndex('server_votes_server_idx')
        .on('server_votes')
        .columns(['server_id', 'created_at'])
        .execute();
      // The two cooldowns: latest vote of an account, latest vote of a client key, per server.
      await db.schema
        .createIndex('server_votes_user_idx')
        .on('server_votes')
        .columns(['server_id', 'user_id', 'created_at'])
        .execute();
      await db.schema
        .createIndex('server_votes_client_idx')
        .on('server_votes')
        .columns(['server_id', 'client_key', 'created_at'])
        .execute();
      await db.schema.createIndex('server_votes_voter_idx').on('server_votes').column('user_id').execute();
      // The delivery queue: only votes still to deliver.
      await db.schema
        .createIndex('server_votes_delivery_due_idx')
        .on('server_votes')
        .column('delivery_next_at')
        .where(sql.ref('delivery_status'), '=', 'PENDING')
        .execute();

      await db.schema
        .createTable('server_votifiers')
        .addColumn('server_id', 'text', (col) =>
          col.primaryKey().references('servers.id').onDelete('cascade'),
        )
        .addColumn('host', 'text', (col) => col.notNull())
        .addColumn('port', 'integer', (col) => col.notNull())
        // AES-256-GCM under a key derived from SECRET (core/events/secret-box.ts, purpose 'votifier-token').
        .addColumn('token_sealed', 'text', (col) => col.notNull())
        .addColumn('enabled', 'boolean', (col) => col.notNull())
        .addColumn('created_at', ts, (col) => col.notNull())
        .addColumn('updated_at', ts, (col) => col.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('server_votifiers').execute();
      await db.schema.dropTable('server_votes').execute();
      await db.schema.dropIndex('servers_status_votes_idx').execute();
      await db.schema.alterTable('servers').dropColumn('total_votes').execute();
      await db.schema.alterTable('servers').dropColumn('vote_month').execute();
      await db.schema.alterTable('servers').dropColumn('vote_count').execute();
    },
  };
}
