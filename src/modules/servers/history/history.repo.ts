// SQL of the server history: the per-minute sample, the hourly rollup, retention, and the stats reads.
import { sql } from 'kysely';
import type { Kysely, RawBuilder } from 'kysely';
import type { DialectName } from '../../../core/db/database.js';
import type { DB } from '../../../core/db/schema.js';

const HOUR_MS = 3_600_000;

/** A timestamp parameter in a select list: PostgreSQL needs its type spelled out there, SQLite stores the text. */
function tsParam(dialect: DialectName, iso: string): RawBuilder<string> {
  return dialect === 'postgres' ? sql<string>`cast(${iso} as timestamptz)` : sql<string>`${iso}`;
}

/**
 * One INSERT … SELECT: a sample at `minuteAt` for every server that reported after `reportedAfter`. The primary
 * key (server, minute) with DO NOTHING makes a second run in the same minute, or a second process, a no-op.
 * Returns the rows written.
 */
export async function insertSamples(
  db: Kysely<DB>,
  dialect: DialectName,
  minuteAt: string,
  reportedAfter: string,
): Promise<number> {
  const result = await db
    .insertInto('server_samples')
    .columns(['server_id', 'minute_at', 'online', 'online_players', 'max_players'])
    .expression(
      db
        .selectFrom('servers')
        .select(['id', tsParam(dialect, minuteAt).as('minute_at'), 'online', 'online_players', 'max_players'])
        // SQLite's upsert after INSERT … SELECT needs a WHERE in the SELECT (parsing ambiguity): there is one.
        .where('last_reported_at', '>', reportedAfter),
    )
    .onConflict((oc) => oc.columns(['server_id', 'minute_at']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/** Start of the newest hour rolled up (for any server), or undefined when nothing was. */
export async function lastRolledHour(db: Kysely<DB>): Promise<string | undefined> {
  const row = await db
    .selectFrom('server_rollups')
    .select((eb) => eb.fn.max('hour_at').as('last'))
    .executeTakeFirst();
  return row?.last ?? undefined;
}

/** The oldest sample in [from, before) (from: unbounded when undefined), by the minute index. */
export async function oldestSample(
  db: Kysely<DB>,
  from: string | undefined,
  before: string,
): Promise<string | undefined> {
  let query = db
    .selectFrom('server_samples')
    .select((eb) => eb.fn.min('minute_at').as('first'))
    .where('minute_at', '<', before);
  if (from !== undefined) query = query.where('minute_at', '>=', from);
  const row = await query.executeTakeFirst();
  return row?.first ?? undefined;
}

/**
 * Aggregates one hour of every server's samples into server_rollups. An upsert, so rolling an hour up again
 * (a rerun, a second process) rewrites the same numbers. Returns the servers rolled up.
 */
export async function rollUpHour(db: Kysely<DB>, dialect: DialectName, hourAt: string): Promise<number> {
  const end = new Date(Date.parse(hourAt) + HOUR_MS).toISOString();
  const result = await db
    .insertInto('server_rollups')
    .columns(['server_id', 'hour_at', 'online_minutes', 'player_minutes', 'peak_players', 'max_players'])
    .expression(
      db
        .selectFrom('server_samples')
        .select((eb) => [
          'server_id',
          tsParam(dialect, hourAt).as('hour_at'),
          eb.fn.sum<number>(eb.case().when('online', '=', true).then(1).else(0).end()).as('online_minutes'),
          eb.fn.sum<number>('online_players').as('player_minutes'),
          eb.fn.max('online_players').as('peak_players'),
          eb.fn.max('max_players').as('max_players'),
        ])
        .where('minute_at', '>=', hourAt)
        .where('minute_at', '<', end)
        // SQLite keeps samples in primary-key order (WITHOUT ROWID: by server, then minute), so one hour of every
        // server read through the minute index is a random lookup per sample. Naming the servers instead makes
        // it one primary-key range (60 adjacent rows) per server. PostgreSQL appends rows to the heap in time
        // order: there the minute index reads an hour as adjacent pages.
        .$if(dialect === 'sqlite', (qb) =>
          qb.where('server_id', 'in', (eb) => eb.selectFrom('servers').select('id')),
        )
        .groupBy('server_id'),
    )
    .onConflict((oc) =>
      oc.columns(['server_id', 'hour_at']).doUpdateSet((eb) => ({
        online_minutes: eb.ref('excluded.online_minutes'),
        player_minutes: eb.ref('excluded.player_minutes'),
        peak_players: eb.ref('excluded.peak_players'),
        max_players: eb.ref('excluded.max_players'),
      })),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/** Oldest row time of a history table before `before`, to delete from in bounded slices. */
async function oldestBefore(
  db: Kysely<DB>,
  table: 'server_samples' | 'server_rollups',
  before: string,
): Promise<string | undefined> {
  const row =
    table === 'server_samples'
      ? await db
          .selectFrom('server_samples')
          .select((eb) => eb.fn.min('minute_at').as('first'))
          .where('minute_at', '<', before)
          .executeTakeFirst()
      : await db
          .selectFrom('server_rollups')
          .select((eb) => eb.fn.min('hour_at').as('first'))
          .where('hour_at', '<', before)
          .executeTakeFirst();
  return row?.first ?? undefined;
}

/**
 * Deletes rows older than `before` one time slice at a time (at most `maxSlices`), so one statement never
 * holds the write lock over days of rows at once. Returns the rows deleted.
 */
export async function deleteOlderThan(
  db: Kysely<DB>,
  table: 'server_samples' | 'server_rollups',
  before: string,
  sliceMs: number,
  maxSlices: number,
): Promise<number> {
  let deleted = 0;
  for (let slice = 0; slice < maxSlices; slice += 1) {
    const oldest = await oldestBefore(db, table, before);
    if (oldest === undefined) break;
    const upTo = new Date(Math.min(Date.parse(oldest) + sliceMs, Date.parse(before))).toISOString();
    const result =
      table === 'server_samples'
        ? await db.deleteFrom('server_samples').where('minute_at', '<', upTo).executeTakeFirst()
        : await db.deleteFrom('server_rollups').where('hour_at', '<', upTo).executeTakeFirst();
    deleted += Number(result.numDeletedRows);
  }
  return deleted;
}

/** What the stats route needs of a server: the view rule's facts and when it was created. */
export function findServerForStats(db: Kysely<DB>, serverId: string) {
  return db
    .selectFrom('servers')
    .select(['id', 'status', 'owner_type', 'owner_id', 'created_at'])
    .where('id', '=', serverId)
    .executeTakeFirst();
}

/** A server's samples in [from, to), oldest first: one primary-key range. */
export function samplesBetween(db: Kysely<DB>, serverId: string, from: string, to: string) {
  return db
    .selectFrom('server_samples')
    .select(['minute_at', 'online', 'online_players', 'max_players'])
    .where('server_id', '=', serverId)
    .where('minute_at', '>=', from)
    .where('minute_at', '<', to)
    .orderBy('minute_at')
    .execute();
}

/** A server's rollups in [from, to), oldest first: one primary-key range. */
export function rollupsBetween(db: Kysely<DB>, serverId: string, from: string, to: string) {
  return db
    .selectFrom('server_rollups')
    .select(['hour_at', 'online_minutes', 'player_minutes', 'peak_players', 'max_players'])
    .where('server_id', '=', serverId)
    .where('hour_at', '>=', from)
    .where('hour_at', '<', to)
    .orderBy('hour_at')
    .execute();
}
