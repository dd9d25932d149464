import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/**
 * Server keys and heartbeats (spec/extensions.md §3): the keys a game server proves itself with (digest only, as
 * for API keys) and the live facts its heartbeats carry on the server row. The sweep that marks silent servers
 * offline already has its index (servers_online_reported_idx, 0005_servers).
 */
export function serverKeys({ ts }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('server_keys')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('server_id', 'text', (col) => col.notNull().references('servers.id').onDelete('cascade'))
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('prefix', 'text', (col) => col.notNull())
        // The heartbeat finds its key by digest alone: unique, so one index lookup.
        .addColumn('key_hash', 'text', (col) => col.notNull().unique())
        .addColumn('created_at', ts, (col) => col.notNull())
        .addColumn('last_used_at', ts)
        .execute();
      // The per-server list and the at-most-5 count.
      await db.schema
        .createIndex('server_keys_server_idx')
        .on('server_keys')
        .columns(['server_id', 'created_at'])
        .execute();
      await db.schema.alterTable('servers').addColumn('last_heartbeat_at', ts).execute();
      await db.schema.alterTable('servers').addColumn('game_version', 'text').execute();
      await db.schema.alterTable('servers').addColumn('motd', 'text').execute();
      await db.schema.alterTable('servers').addColumn('latency_ms', 'integer').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      for (const column of ['latency_ms', 'motd', 'game_version', 'last_heartbeat_at']) {
        await db.schema.alterTable('servers').dropColumn(column).execute();
      }
      await db.schema.dropTable('server_keys').execute();
    },
  };
}
