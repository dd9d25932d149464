// Reported status: the sweep that marks silent servers offline and the conditional flips of the online flag.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../../core/db/schema.js';
import { SERVER_EVENT_COLUMNS } from '../server-events.js';
import type { ServerEventRow } from '../server-events.js';

type Executor = Kysely<DB> | Transaction<DB>;

/**
 * Servers whose last report (heartbeat or status) is at or before `reportedBy` count as offline with no players;
 * returns those it flipped, with the report time the boundary is counted from. Reads servers_online_reported_idx:
 * only the online servers past the boundary are touched, so the sweep costs nothing while all are reporting.
 */
export function markSilentServersOffline(
  db: Executor,
  reportedBy: string,
): Promise<Array<ServerEventRow & { last_reported_at: string | null }>> {
  return db
    .updateTable('servers')
    .set({ online: false, online_players: 0 })
    .where('online', '=', true)
    .where((eb) => eb.or([eb('last_reported_at', 'is', null), eb('last_reported_at', '<=', reportedBy)]))
    .returning([...SERVER_EVENT_COLUMNS, 'last_reported_at'])
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
