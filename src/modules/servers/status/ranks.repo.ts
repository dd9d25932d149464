// The rank of every APPROVED server, recomputed in place by one UPDATE … FROM a window-function subquery (both
// dialects), writing only the rows whose rank changed; and the sweep that marks silent servers offline.
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../../core/db/schema.js';
import { SERVER_EVENT_COLUMNS } from '../server-events.js';
import type { ServerEventRow } from '../server-events.js';
import { bumpDirectoryVersion } from '../servers.repo.js';

type Executor = Kysely<DB> | Transaction<DB>;

export async function recomputeRanks(db: Kysely<DB>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // Moderation already clears the rank of a server leaving APPROVED; this only repairs what slipped past.
    await trx
      .updateTable('servers')
      .set({ rank: null })
      .where('status', '!=', 'APPROVED')
      .where('rank', 'is not', null)
      .execute();
    const ranked = trx
      .selectFrom('servers')
      .select([
        'servers.id',
        sql<number>`row_number() over (order by online_players desc, created_at asc, id asc)`.as('position'),
      ])
      .where('servers.status', '=', 'APPROVED')
      .as('ranked');
    const result = await trx
      .updateTable('servers')
      .from(ranked)
      .set((eb) => ({ rank: eb.ref('ranked.position') }))
      .whereRef('servers.id', '=', 'ranked.id')
      // Re-checked against the current row: a server suspended meanwhile keeps its null rank.
      .where('servers.status', '=', 'APPROVED')
      .where((eb) =>
        eb.or([eb('servers.rank', 'is', null), eb('servers.rank', '!=', eb.ref('ranked.position'))]),
      )
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) > 0) await bumpDirectoryVersion(trx);
  });
}

/** Servers that have not reported since `before` count as offline with no players; returns those it flipped. */
export function markSilentServersOffline(db: Executor, before: string): Promise<ServerEventRow[]> {
  return db
    .updateTable('servers')
    .set({ online: false, online_players: 0 })
    .where('online', '=', true)
    .where((eb) => eb.or([eb('last_reported_at', 'is', null), eb('last_reported_at', '<', before)]))
    .returning(SERVER_EVENT_COLUMNS)
    .execute();
}

/**
 * Sets the online flag only if it is not already `online`, returning the server when it flipped. A conditional
 * update, so of two concurrent reports only one sees the flip (and records it).
 */
export function flipOnline(
  db: Executor,
  serverId: string,
  online: boolean,
): Promise<ServerEventRow | undefined> {
  return db
    .updateTable('servers')
    .set({ online })
    .where('id', '=', serverId)
    .where('online', '=', !online)
    .returning(SERVER_EVENT_COLUMNS)
    .executeTakeFirst();
}

export async function updateReportedStatus(
  db: Executor,
  serverId: string,
  report: { online: boolean; online_players: number; max_players: number; last_reported_at: string },
): Promise<boolean> {
  const result = await db.updateTable('servers').set(report).where('id', '=', serverId).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
