import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/**
 * The transparent rank (spec/extensions.md §3): the score and its inputs, stored on the server by the
 * recompute-server-ranks job so GET /servers/:id/rank reads one row and sort=rank stays an index read
 * (servers_status_rank_idx of 0005). listed_at is the first approval: the age part of the score and the
 * tie-breaker. Double precision: a float4 score would round differently from the value it is compared with.
 */
export function serverRank({ ts }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('servers')
        .addColumn('score', 'double precision', (col) => col.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('servers')
        .addColumn('votes_30d', 'integer', (col) => col.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('servers')
        .addColumn('average_players_7d', 'double precision', (col) => col.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('servers')
        .addColumn('uptime_7d', 'double precision', (col) => col.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('servers').addColumn('listed_at', ts).execute();
      // When the job last wrote the score: daysListed is shown as of then, so the parts add up to the score.
      await db.schema.alterTable('servers').addColumn('score_computed_at', ts).execute();
      // Servers approved before this migration: their first APPROVE, or when their status last changed (the
      // approval itself, for a server approved once and never moved since).
      await sql`
        update servers set listed_at = coalesce(
          (select min(e.created_at) from server_moderation_events e
            where e.server_id = servers.id and e.action = 'APPROVE'),
          status_updated_at)
        where status = 'APPROVED'
      `.execute(db);
    },
    async down(db: Kysely<unknown>): Promise<void> {
      for (const column of [
        'score_computed_at',
        'listed_at',
        'uptime_7d',
        'average_players_7d',
        'votes_30d',
        'score',
      ]) {
        await db.schema.alterTable('servers').dropColumn(column).execute();
      }
    },
  };
}
