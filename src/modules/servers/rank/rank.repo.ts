// The transparent rank (spec/extensions.md §3), recomputed in a fixed number of statements whatever the number
// of servers: the 7-day inputs from the hourly rollups (only when the window or the rollups moved), one UPDATE …
// FROM the votes of 30 days for every server's score, one UPDATE … FROM a window function numbering the APPROVED
// servers. Each writes only the rows that change.
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { DialectName } from '../../../core/db/database.js';
import { lockForUpdate } from '../../../core/db/dialect.js';
import type { DB } from '../../../core/db/schema.js';
import { bumpDirectoryVersion } from '../servers.repo.js';
import { MAX_DAYS_LISTED } from './rank.formula.js';
import type { RankWeights } from './rank.formula.js';

type Executor = Kysely<DB> | Transaction<DB>;

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The windows the score reads, for a recomputation at `now`: votes of the last 30 days, and the 168 complete
 * hours before the current one (rollups exist for complete hours only, so an always-online server has uptime 1).
 */
export function rankWindows(now: Date) {
  const rollupsEnd = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  return {
    now: now.toISOString(),
    votesSince: new Date(now.getTime() - 30 * DAY_MS).toISOString(),
    rollupsStart: new Date(rollupsEnd - 7 * DAY_MS).toISOString(),
    rollupsEnd: new Date(rollupsEnd).toISOString(),
  };
}

const float = (value: number) => sql`cast(${value} as double precision)`;

/** Minutes from `from` (a column or a timestamp) to `to`, as a float, on either dialect. */
function minutesBetween(dialect: DialectName, from: ReturnType<typeof sql>, to: string) {
  return dialect === 'postgres'
    ? sql`(extract(epoch from (cast(${to} as timestamptz) - ${from}))::float8 / 60.0)`
    : sql`((julianday(${to}) - julianday(${from})) * 1440.0)`;
}

const later = (dialect: DialectName, a: ReturnType<typeof sql>, b: ReturnType<typeof sql>) =>
  dialect === 'postgres' ? sql`greatest(${a}, ${b})` : sql`max(${a}, ${b})`;
const earlier = (dialect: DialectName, a: ReturnType<typeof sql>, b: ReturnType<typeof sql>) =>
  dialect === 'postgres' ? sql`least(${a}, ${b})` : sql`min(${a}, ${b})`;

/**
 * Writes average_players_7d and uptime_7d of every server from the hourly rollups of the window. Intervals are
 * the minutes of the window since the server's creation; a minute without a sample counts as offline with 0
 * players (15-shared definitions). The costly part of the score: 168 rollups per server, read by primary key.
 */
export async function updateWindowInputs(db: Executor, dialect: DialectName, now: Date): Promise<number> {
  const w = rankWindows(now);
  // Minutes from the later of the window start and the creation minute (as GET /servers/:id/stats counts).
  const intervals =
    dialect === 'postgres'
      ? sql`greatest(0.0, extract(epoch from (cast(${w.rollupsEnd} as timestamptz) - greatest(cast(${w.rollupsStart} as timestamptz), date_trunc('minute', s.created_at))))::float8 / 60.0)`
      : sql`max(0.0, (julianday(${w.rollupsEnd}) - max(julianday(${w.rollupsStart}), julianday(strftime('%Y-%m-%dT%H:%M:00', s.created_at)))) * 1440.0)`;
  const ratio = (part: string) =>
    sql`case when i.intervals > 0 then cast(i.${sql.raw(part)} as double precision) / i.intervals else 0.0 end`;
  // Materialized steps: inline, each use of a column re-ran its per-server reads (a ratio reads it twice).
  const result = await sql`
    with i as materialized (
      -- Correlated per server: each is a range read of the rollups' primary key, where a joined GROUP BY made
      -- SQLite scan them once per server.
      select s.id,
        (select coalesce(sum(r.online_minutes), 0) from server_rollups r
          where r.server_id = s.id and r.hour_at >= ${w.rollupsStart} and r.hour_at < ${w.rollupsEnd})
          as online_minutes,
        (select coalesce(sum(r.player_minutes), 0) from server_rollups r
          where r.server_id = s.id and r.hour_at >= ${w.rollupsStart} and r.hour_at < ${w.rollupsEnd})
          as player_minutes,
        ${intervals} as intervals
      from servers s
    ), p as materialized (
      select i.id,
        ${ratio('player_minutes')} as average_players_7d,
        ${earlier(dialect, sql`1.0`, ratio('online_minutes'))} as uptime_7d
      from i
    )
    update servers set average_players_7d = p.average_players_7d, uptime_7d = p.uptime_7d
    from p
    where servers.id = p.id
      and (servers.average_players_7d <> p.average_players_7d or servers.uptime_7d <> p.uptime_7d)
  `.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Writes votes_30d and score of every server (listed or not: a server being approved is placed by the score it
 * already has), from the stored 7-day inputs. Every minute: the vote window and the days listed move.
 */
export async function updateScores(
  db: Executor,
  dialect: DialectName,
  now: Date,
  weights: RankWeights,
): Promise<number> {
  const w = rankWindows(now);
  const daysListed = sql`coalesce(${later(dialect, sql`0.0`, minutesBetween(dialect, sql`s.listed_at`, w.now))} / 1440.0, 0.0)`;
  const result = await sql`
    with i as materialized (
      -- A range read of server_votes_server_idx per server.
      select s.id, s.average_players_7d, s.uptime_7d,
        (select count(*) from server_votes v
          where v.server_id = s.id and v.created_at >= ${w.votesSince}) as votes_30d,
        ${daysListed} as days_listed
      from servers s
    ), c as materialized (
      select i.id, i.votes_30d,
        ${float(weights.votes)} * i.votes_30d + ${float(weights.players)} * i.average_players_7d
          + ${float(weights.uptime)} * i.uptime_7d
          + ${float(weights.age)} * ${earlier(dialect, sql`i.days_listed`, sql`${float(MAX_DAYS_LISTED)}`)} as score
      from i
    )
    update servers set
      votes_30d = c.votes_30d,
      score = c.score,
      score_computed_at = ${dialect === 'postgres' ? sql`cast(${w.now} as timestamptz)` : sql`${w.now}`}
    from c
    where servers.id = c.id and (servers.score <> c.score or servers.votes_30d <> c.votes_30d)
  `.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

const WINDOW_END_COUNTER = 'server_rank.window_end_hour';
const NEWEST_ROLLUP_COUNTER = 'server_rank.newest_rollup_hour';
const epochHour = (iso: string | null | undefined) =>
  iso === null || iso === undefined ? 0 : Math.floor(new Date(iso).getTime() / HOUR_MS);

/**
 * The 7-day inputs change only when the window moves (each hour) or the rollup job writes a newer hour (it rolls
 * hours oldest first and never rewrites one): both are recorded in two counters, and the inputs are recomputed
 * only when either differs. Measured on PostgreSQL with 10,000 servers, that part was most of the minute's work.
 */
async function refreshWindowInputsIfMoved(trx: Transaction<DB>, dialect: DialectName, now: Date) {
  const windowEnd = epochHour(rankWindows(now).rollupsEnd);
  const [newest, stored] = await Promise.all([
    trx
      .selectFrom('server_rollups')
      .select((eb) => eb.fn.max('hour_at').as('hour'))
      .executeTakeFirst(),
    trx
      .selectFrom('counters')
      .select(['name', 'value'])
      .where('name', 'in', [WINDOW_END_COUNTER, NEWEST_ROLLUP_COUNTER])
      .execute(),
  ]);
  const newestHour = epochHour(newest?.hour as string | null | undefined);
  const storedValue = (name: string) => Number(stored.find((row) => row.name === name)?.value ?? -1);
  if (storedValue(WINDOW_END_COUNTER) === windowEnd && storedValue(NEWEST_ROLLUP_COUNTER) === newestHour)
    return;
  await updateWindowInputs(trx, dialect, now);
  for (const [name, value] of [
    [WINDOW_END_COUNTER, windowEnd],
    [NEWEST_ROLLUP_COUNTER, newestHour],
  ] as const) {
    await trx
      .insertInto('counters')
      .values({ name, value })
      .onConflict((oc) => oc.column('name').doUpdateSet({ value }))
      .execute();
  }
}

/**
 * Numbers the APPROVED servers by score, older listing first on ties, then id; writes only the ranks that
 * move. Moderation runs it inside an approval so the new server is ranked at once.
 */
export async function rerankApproved(db: Executor): Promise<number> {
  const ranked = db
    .selectFrom('servers')
    .select([
      'servers.id',
      sql<number>`row_number() over (order by score desc, listed_at asc nulls last, id asc)`.as('position'),
    ])
    .where('servers.status', '=', 'APPROVED')
    .as('ranked');
  const result = await db
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
  return Number(result.numUpdatedRows);
}

/** At approval: the first approval is the listing time (kept through later suspensions), then the ranks. */
export async function placeApprovedServer(db: Executor, serverId: string, now: string): Promise<void> {
  await db
    .updateTable('servers')
    .set({ listed_at: now })
    .where('id', '=', serverId)
    .where('listed_at', 'is', null)
    .execute();
  await rerankApproved(db);
}

/**
 * One rank writer at a time (PostgreSQL): the job and an approval each renumber many rows, so each takes this
 * lock before its first server row, and neither can hold a row the other waits for.
 */
export const lockRanks = (trx: Transaction<DB>, dialect: DialectName) =>
  lockForUpdate(trx, dialect, 'server-ranks');

export async function recomputeRanks(
  db: Kysely<DB>,
  dialect: DialectName,
  now: Date,
  weights: RankWeights,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await lockRanks(trx, dialect);
    // The planner's cost for 10,000 per-server reads switches JIT on, and compiling took seconds (measured)
    // for a statement that runs in well under one.
    if (dialect === 'postgres') await sql`set local jit = off`.execute(trx);
    // Moderation already clears the rank of a server leaving APPROVED; this only repairs what slipped past.
    const cleared = await trx
      .updateTable('servers')
      .set({ rank: null })
      .where('status', '!=', 'APPROVED')
      .where('rank', 'is not', null)
      .executeTakeFirst();
    await refreshWindowInputsIfMoved(trx, dialect, now);
    await updateScores(trx, dialect, now, weights);
    const moved = await rerankApproved(trx);
    // Lists show ranks, not scores: only a moved rank makes the cached directory pages stale.
    if (Number(cleared.numUpdatedRows) + moved > 0) await bumpDirectoryVersion(trx);
  });
}

export interface RankRow {
  id: string;
  status: DB['servers']['status'];
  owner_type: 'USER' | 'TEAM';
  owner_id: string;
  rank: number | null;
  score: number;
  votes_30d: number;
  average_players_7d: number;
  uptime_7d: number;
  listed_at: string | null;
  score_computed_at: string | null;
}

export function findRankRow(db: Executor, serverId: string): Promise<RankRow | undefined> {
  return db
    .selectFrom('servers')
    .select([
      'id',
      'status',
      'owner_type',
      'owner_id',
      'rank',
      'score',
      'votes_30d',
      'average_players_7d',
      'uptime_7d',
      'listed_at',
      'score_computed_at',
    ])
    .where('id', '=', serverId)
    .executeTakeFirst();
}
