import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/**
 * Per-minute samples and hourly rollups of server status (spec/extensions.md §3). Both are keyed by
 * (server, time) so GET /servers/:id/stats reads one primary-key range; the time indexes serve the rollup (one
 * hour of every server) and the retention deletes. On SQLite both tables are WITHOUT ROWID: the primary key is
 * the table, which saves a second copy of every row (samples are the largest table: 1,440 rows per server a day).
 */
export function serverHistory({ ts, dialect }: MigrationContext) {
  const clustered = dialect === 'sqlite' ? sql`without rowid` : sql``;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('server_samples')
        .addColumn('server_id', 'text', (col) => col.notNull().references('servers.id').onDelete('cascade'))
        .addColumn('minute_at', ts, (col) => col.notNull())
        .addColumn('online', 'boolean', (col) => col.notNull())
        .addColumn('online_players', 'integer', (col) => col.notNull())
        .addColumn('max_players', 'integer', (col) => col.notNull())
        .addPrimaryKeyConstraint('server_samples_pk', ['server_id', 'minute_at'])
        .modifyEnd(clustered)
        .execute();
      await db.schema
        .createIndex('server_samples_minute_idx')
        .on('server_samples')
        .column('minute_at')
        .execute();

      await db.schema
        .createTable('server_rollups')
        .addColumn('server_id', 'text', (col) => col.notNull().references('servers.id').onDelete('cascade'))
        .addColumn('hour_at', ts, (col) => col.notNull())
        .addColumn('online_minutes', 'integer', (col) => col.notNull())
        .addColumn('player_minutes', 'integer', (col) => col.notNull())
        .addColumn('peak_players', 'integer', (col) => col.notNull())
        .addColumn('max_players', 'integer', (col) => col.notNull())
        .addPrimaryKeyConstraint('server_rollups_pk', ['server_id', 'hour_at'])
        .modifyEnd(clustered)
        .execute();
      await db.schema.createIndex('server_rollups_hour_idx').on('server_rollups').column('hour_at').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('server_rollups').execute();
      await db.schema.dropTable('server_samples').execute();
    },
  };
}
