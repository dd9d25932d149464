// Server status history (spec/extensions.md §3 "History"): a sample per reporting server per minute, hourly
// rollups, retention, and the stats of a time range. Uptime and averages follow one definition shared with the
// rank: over a range, the intervals are the minutes from max(range start, server creation) to the range end; a
// minute without a sample counts as offline with 0 players.
import type { Kysely } from 'kysely';
import type { Actor } from '../../../core/auth/authenticate.js';
import type { ServerAccess } from '../../../core/auth/server-access.js';
import type { Clock } from '../../../core/clock.js';
import type { DialectName } from '../../../core/db/database.js';
import type { DB } from '../../../core/db/schema.js';
import { notFound } from '../../../core/http/errors.js';
import {
  deleteOlderThan,
  findServerForStats,
  insertSamples,
  lastRolledHour,
  oldestSample,
  rollUpHour,
  rollupsBetween,
  samplesBetween,
} from './history.repo.js';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** A server is "reporting" while its last heartbeat or status report is younger than this (the online rule). */
export const REPORTING_WINDOW_MS = 3 * MINUTE_MS;
export const SAMPLE_RETENTION_MS = 48 * HOUR_MS;
export const ROLLUP_RETENTION_MS = 400 * DAY_MS;
/** Hours one rollup run aggregates at most: more than the sample retention, so a restart catches up in one run. */
export const MAX_HOURS_PER_RUN = 72;
/** Retention deletes in slices of this much time (10,000 servers: 100,000 samples a slice), at most this many. */
const SAMPLE_SLICE_MS = 10 * MINUTE_MS;
const ROLLUP_SLICE_MS = DAY_MS;
const MAX_DELETE_SLICES = 500;

export const STATS_RANGES = ['24h', '7d', '30d', '90d'] as const;
export type StatsRange = (typeof STATS_RANGES)[number];

/** 24h reads raw samples in 5-minute points; the longer ranges read hourly rollups, one point per hour. */
const RANGES: Record<StatsRange, { spanMs: number; source: 'samples' | 'rollups'; bucketMinutes: number }> = {
  '24h': { spanMs: DAY_MS, source: 'samples', bucketMinutes: 5 },
  '7d': { spanMs: 7 * DAY_MS, source: 'rollups', bucketMinutes: 60 },
  '30d': { spanMs: 30 * DAY_MS, source: 'rollups', bucketMinutes: 60 },
  '90d': { spanMs: 90 * DAY_MS, source: 'rollups', bucketMinutes: 60 },
};

const floorTo = (time: number, unitMs: number) => Math.floor(time / unitMs) * unitMs;
const iso = (time: number) => new Date(time).toISOString();
const round = (value: number, decimals: number) => Math.round(value * 10 ** decimals) / 10 ** decimals;

export interface StatsPoint {
  at: string;
  onlinePlayers: number;
  maxPlayers: number;
  online: boolean;
}

export interface ServerStats {
  range: StatsRange;
  from: string;
  to: string;
  bucketMinutes: number;
  points: StatsPoint[];
  uptime: number;
  peakPlayers: number;
  averagePlayers: number;
}

/** One bucket's totals: online minutes, player-minutes, peak and capacity. */
interface Bucket {
  at: number;
  onlineMinutes: number;
  playerMinutes: number;
  peak: number;
  maxPlayers: number;
}

/**
 * A point per bucket with data: onlinePlayers is the bucket's average over its counted minutes (missing ones
 * count 0; a bucket cut by the server's creation or by the range end counts only its minutes inside), rounded;
 * online when the server was online for at least half of those minutes.
 */
function toPoint(bucket: Bucket, minutes: number): StatsPoint {
  return {
    at: iso(bucket.at),
    onlinePlayers: Math.round(bucket.playerMinutes / minutes),
    maxPlayers: bucket.maxPlayers,
    online: bucket.onlineMinutes * 2 >= minutes,
  };
}

export type ServerHistoryService = ReturnType<typeof createServerHistoryService>;

export function createServerHistoryService(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  clock: Clock;
  serverAccess: ServerAccess;
}) {
  const { db, dialect, clock, serverAccess } = deps;

  /** The sample-server-status job: this minute's sample of every reporting server. */
  async function sample(): Promise<number> {
    const now = clock.now().getTime();
    return insertSamples(db, dialect, iso(floorTo(now, MINUTE_MS)), iso(now - REPORTING_WINDOW_MS));
  }

  /**
   * The rollup-server-history job. Rolls up, oldest first, every complete hour after the newest rolled-up one
   * that has samples (so it resumes after downtime, at most MAX_HOURS_PER_RUN a run), then applies retention.
   * Samples are deleted only once their hour is rolled up, so a long outage of this job loses no history.
   */
  async function rollUp(): Promise<{ hours: number; samplesDeleted: number; rollupsDeleted: number }> {
    const now = clock.now().getTime();
    const currentHour = iso(floorTo(now, HOUR_MS));
    const last = await lastRolledHour(db);
    let cursor = last === undefined ? undefined : iso(Date.parse(last) + HOUR_MS);
    let hours = 0;
    let caughtUp = false;
    while (hours < MAX_HOURS_PER_RUN) {
      const next = await oldestSample(db, cursor, currentHour);
      if (next === undefined) {
        caughtUp = true;
        break;
      }
      const hourAt = iso(floorTo(Date.parse(next), HOUR_MS));
      await rollUpHour(db, dialect, hourAt);
      hours += 1;
      cursor = iso(Date.parse(hourAt) + HOUR_MS);
    }
    const rolledUpTo = caughtUp ? Date.parse(currentHour) : Date.parse(cursor ?? currentHour);
    // Kept 48 h: a sample exactly 48 h old stays, one a millisecond older goes.
    const samplesBefore = iso(Math.min(now - SAMPLE_RETENTION_MS, rolledUpTo));
    const samplesDeleted = await deleteOlderThan(
      db,
      'server_samples',
      samplesBefore,
      SAMPLE_SLICE_MS,
      MAX_DELETE_SLICES,
    );
    const rollupsDeleted = await deleteOlderThan(
      db,
      'server_rollups',
      iso(now - ROLLUP_RETENTION_MS),
      ROLLUP_SLICE_MS,
      MAX_DELETE_SLICES,
    );
    return { hours, samplesDeleted, rollupsDeleted };
  }

  /**
   * GET /servers/:id/stats. The range ends at the current minute (24h) or hour (longer ranges): only whole,
   * finished minutes or hours count. Returns whether the server is public (the route's cache header).
   */
  async function stats(
    actor: Actor | null,
    serverId: string,
    range: StatsRange,
  ): Promise<{ stats: ServerStats; isPublic: boolean }> {
    const server = await findServerForStats(db, serverId);
    if (server === undefined) throw notFound('Server');
    await serverAccess.authorize(actor, 'server.view', {
      id: server.id,
      status: server.status,
      ownerType: server.owner_type,
      ownerId: server.owner_id,
    });
    const { spanMs, source, bucketMinutes } = RANGES[range];
    const now = clock.now().getTime();
    const to = floorTo(now, source === 'samples' ? MINUTE_MS : HOUR_MS);
    const from = to - spanMs;
    const counted = Math.max(from, floorTo(Date.parse(server.created_at), MINUTE_MS));
    const intervals = Math.max(0, (to - counted) / MINUTE_MS);

    const buckets = new Map<number, Bucket>();
    const add = (at: number, onlineMinutes: number, playerMinutes: number, peak: number, max: number) => {
      const bucket = buckets.get(at) ?? { at, onlineMinutes: 0, playerMinutes: 0, peak: 0, maxPlayers: 0 };
      bucket.onlineMinutes += onlineMinutes;
      bucket.playerMinutes += playerMinutes;
      bucket.peak = Math.max(bucket.peak, peak);
      bucket.maxPlayers = Math.max(bucket.maxPlayers, max);
      buckets.set(at, bucket);
    };
    if (source === 'samples') {
      for (const row of await samplesBetween(db, serverId, iso(from), iso(to))) {
        const at = floorTo(Date.parse(row.minute_at), bucketMinutes * MINUTE_MS);
        add(at, row.online ? 1 : 0, row.online_players, row.online_players, row.max_players);
      }
    } else {
      for (const row of await rollupsBetween(db, serverId, iso(from), iso(to))) {
        add(
          Date.parse(row.hour_at),
          Number(row.online_minutes),
          Number(row.player_minutes),
          row.peak_players,
          row.max_players,
        );
      }
    }

    let onlineMinutes = 0;
    let playerMinutes = 0;
    let peakPlayers = 0;
    const points: StatsPoint[] = [];
    for (const bucket of buckets.values()) {
      onlineMinutes += bucket.onlineMinutes;
      playerMinutes += bucket.playerMinutes;
      peakPlayers = Math.max(peakPlayers, bucket.peak);
      const bucketEnd = Math.min(bucket.at + bucketMinutes * MINUTE_MS, to);
      const minutes = Math.max(1, (bucketEnd - Math.max(bucket.at, counted)) / MINUTE_MS);
      points.push(toPoint(bucket, minutes));
    }
    return {
      isPublic: server.status === 'APPROVED',
      stats: {
        range,
        from: iso(from),
        to: iso(to),
        bucketMinutes,
        points,
        uptime: intervals === 0 ? 0 : round(Math.min(1, onlineMinutes / intervals), 4),
        peakPlayers,
        averagePlayers: intervals === 0 ? 0 : round(playerMinutes / intervals, 2),
      },
    };
  }

  return { sample, rollUp, stats };
}
