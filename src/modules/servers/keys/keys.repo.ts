// Server keys and the heartbeat's writes (spec/extensions.md §3). The heartbeat is the directory's hot write path
// (10,000 servers every 30 s), so each of its statements is one indexed lookup or one conditional update.
import type { Kysely, Transaction } from 'kysely';
import type { DialectName } from '../../../core/db/database.js';
import { prepared } from '../../../core/db/prepared.js';
import type { DB } from '../../../core/db/schema.js';
import type { ServerKeysTable } from '../../../core/db/schema/server-keys.js';

type Executor = Kysely<DB> | Transaction<DB>;

export type ServerKeyRow = ServerKeysTable;

export function listServerKeys(db: Executor, serverId: string): Promise<ServerKeyRow[]> {
  return db
    .selectFrom('server_keys')
    .selectAll()
    .where('server_id', '=', serverId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function countServerKeys(db: Executor, serverId: string): Promise<number> {
  const row = await db
    .selectFrom('server_keys')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('server_id', '=', serverId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function insertServerKey(db: Executor, row: ServerKeyRow): Promise<void> {
  await db.insertInto('server_keys').values(row).execute();
}

/** Deletes the key only if it belongs to the server (a nested id is checked against its parent). */
export async function deleteServerKey(db: Executor, serverId: string, keyId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('server_keys')
    .where('id', '=', keyId)
    .where('server_id', '=', serverId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** What the heartbeat needs about a key and its server, in one lookup by digest. */
export interface HeartbeatKeyRow {
  key_id: string;
  key_last_used_at: string | null;
  server_id: string;
  last_heartbeat_at: string | null;
}

const keyByDigest = prepared<HeartbeatKeyRow, [string]>(1, (db, _dialect, hash) =>
  db
    .selectFrom('server_keys')
    .innerJoin('servers', 'servers.id', 'server_keys.server_id')
    .select([
      'server_keys.id as key_id',
      'server_keys.last_used_at as key_last_used_at',
      'servers.id as server_id',
      'servers.last_heartbeat_at',
    ])
    .where('server_keys.key_hash', '=', hash!),
);

/** Read outside the write transaction (SQLite: on the read connection), so refusals never take the write lock. */
export async function findKeyByDigest(
  db: Kysely<DB>,
  dialect: DialectName,
  hash: string,
): Promise<HeartbeatKeyRow | undefined> {
  const [row] = await keyByDigest(db, dialect, hash);
  return row;
}

export interface HeartbeatFacts {
  online_players: number;
  max_players: number;
  game_version: string | null;
  motd: string | null;
  latency_ms: number | null;
}

/**
 * Records the heartbeat only if the previous accepted one is at least 30 s old (`acceptedBy`): of concurrent
 * heartbeats exactly one matches. Returns the server's online flag as it stands after the update (the caller
 * flips it when false), or undefined when the heartbeat was too early (or the server is gone).
 */
export async function acceptHeartbeat(
  trx: Transaction<DB>,
  serverId: string,
  facts: HeartbeatFacts,
  at: string,
  acceptedBy: string,
): Promise<{ online: boolean } | undefined> {
  const row = await trx
    .updateTable('servers')
    .set({ ...facts, last_heartbeat_at: at, last_reported_at: at })
    .where('id', '=', serverId)
    .where((eb) => eb.or([eb('last_heartbeat_at', 'is', null), eb('last_heartbeat_at', '<=', acceptedBy)]))
    .returning('online')
    .executeTakeFirst();
  return row && { online: Boolean(row.online) };
}

export async function touchServerKey(trx: Transaction<DB>, keyId: string, at: string): Promise<void> {
  await trx.updateTable('server_keys').set({ last_used_at: at }).where('id', '=', keyId).execute();
}
