// Queue positions and public moderation statistics (spec/extensions.md §4).
//
// The statistics are computed at most once a minute per process and database (the clock decides, so tests can
// move past it); queue positions reuse the cached median for their estimate and count their position live.
import type { Kysely } from 'kysely';
import type { Clock } from '../../../core/clock.js';
import { DAY_MS } from '../../../core/clock.js';
import { changeSignalOf, createChangeCache } from '../../../core/db/change-cache.js';
import type { ChangeCache } from '../../../core/db/change-cache.js';
import type { DB } from '../../../core/db/schema.js';
import { countOpenReports, countPending, listReviews, positionOf } from './queue.repo.js';
import type { PositionRow, QueueKind, ReviewRow } from './queue.repo.js';

export const STATS_TTL_MS = 60_000;

export interface KindStats {
  pending: number;
  reviewedLast7Days: number;
  medianReviewSeconds30d: number | null;
  p90ReviewSeconds30d: number | null;
}

export interface ModerationStats {
  versions: KindStats;
  resources: KindStats;
  servers: KindStats;
  reports: KindStats;
}

export interface QueuePosition {
  position: number;
  total: number;
  estimatedReviewAt: string | null;
}

const toMs = (value: string | Date): number =>
  value instanceof Date ? value.getTime() : new Date(value).getTime();

/** The median: the middle value, or the mean of the two middle values of an even count. */
export function median(sorted: readonly number[]): number | null {
  if (sorted.length === 0) return null;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The 90th percentile by nearest rank: the smallest value with at least 90% of the values at or below it. */
export function p90(sorted: readonly number[]): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.ceil(0.9 * sorted.length) - 1]!;
}

/** Review durations in whole seconds (rounded), and the count decided in the last 7 days. */
export function summarize(rows: readonly ReviewRow[], nowMs: number): Omit<KindStats, 'pending'> {
  const weekStart = nowMs - 7 * DAY_MS;
  let reviewedLast7Days = 0;
  const seconds: number[] = [];
  for (const row of rows) {
    const decided = toMs(row.decided_at);
    if (decided >= weekStart) reviewedLast7Days += 1;
    // A decision whose entry into the queue is unknown (history older than the submission events) is counted
    // as a review but has no duration.
    if (row.entered_at === null) continue;
    seconds.push(Math.max(0, (decided - toMs(row.entered_at)) / 1000));
  }
  seconds.sort((a, b) => a - b);
  const round = (value: number | null) => (value === null ? null : Math.round(value));
  return {
    reviewedLast7Days,
    medianReviewSeconds30d: round(median(seconds)),
    p90ReviewSeconds30d: round(p90(seconds)),
  };
}

async function computeStats(db: Kysely<DB>, now: Date): Promise<ModerationStats> {
  const to = now.toISOString();
  const from = new Date(now.getTime() - 30 * DAY_MS).toISOString();
  const kind = async (name: QueueKind | 'reports'): Promise<KindStats> => {
    const [pending, reviews] = await Promise.all([
      name === 'reports' ? countOpenReports(db) : countPending(db, name),
      listReviews(db, name, from, to),
    ]);
    return { pending, ...summarize(reviews, now.getTime()) };
  };
  const [versions, resources, servers, reports] = await Promise.all([
    kind('versions'),
    kind('resources'),
    kind('servers'),
    kind('reports'),
  ]);
  return { versions, resources, servers, reports };
}

interface CachedStats {
  computedAt: number;
  stats: Promise<ModerationStats>;
}

// One entry per database handle: each app (and each test app) has its own, and a closed app's entry goes with it.
const statsCache = new WeakMap<Kysely<DB>, CachedStats>();

/**
 * The statistics, computed at most once per STATS_TTL_MS of the clock per process and database. Concurrent
 * callers share one computation; a failed one is not kept.
 */
export function moderationStats(db: Kysely<DB>, clock: Clock): Promise<ModerationStats> {
  const now = clock.now();
  const kept = statsCache.get(db);
  // A clock moved backwards (tests) counts as expired too.
  const age = kept === undefined ? Infinity : now.getTime() - kept.computedAt;
  if (kept !== undefined && age >= 0 && age < STATS_TTL_MS) return kept.stats;
  const entry: CachedStats = { computedAt: now.getTime(), stats: computeStats(db, now) };
  statsCache.set(db, entry);
  entry.stats.catch(() => {
    if (statsCache.get(db) === entry) statsCache.delete(db);
  });
  return entry.stats;
}

/**
 * Position rows kept until the database changes (core/db/change-cache.ts): an item's place in its queue moves only
 * with a write (an item ahead reviewed, a status changed), and the owner side or a contributor tends to read the
 * same PENDING item again and again. Inside a transaction nothing is kept.
 */
const positionCaches = new WeakMap<Kysely<DB>, ChangeCache<PositionRow | undefined>>();

function positionsOf(db: Kysely<DB>): ChangeCache<PositionRow | undefined> {
  let cache = positionCaches.get(db);
  if (cache === undefined) {
    cache = createChangeCache<PositionRow | undefined>({ changes: changeSignalOf(db) });
    positionCaches.set(db, cache);
  }
  return cache;
}

/**
 * The queue position of a PENDING item, or undefined when it is not PENDING: one prepared statement (above)
 * plus the cached median. The estimate is waiting-since + the median review time of the last 30 days, or now
 * when that moment has passed; null without reviews in those 30 days.
 */
export async function queuePosition(
  db: Kysely<DB>,
  clock: Clock,
  kind: QueueKind,
  id: string,
): Promise<QueuePosition | undefined> {
  // The statistics are cached: usually no statement, and when they expire their reads run beside this one.
  const [row, stats] = await Promise.all([
    positionsOf(db).get(`${kind}:${id}`, () => positionOf(db, kind, id)),
    moderationStats(db, clock),
  ]);
  if (row === undefined || row.since === null) return undefined;
  const ahead = Number(row.ahead);
  const rest = Number(row.rest);
  const total = kind === 'resources' ? rest : ahead + 1 + rest;
  const medianSeconds = stats[kind].medianReviewSeconds30d;
  const nowMs = clock.now().getTime();
  const estimatedReviewAt =
    medianSeconds === null
      ? null
      : new Date(Math.max(toMs(row.since) + medianSeconds * 1000, nowMs)).toISOString();
  // The counter is kept apart from the rows it counts: never show a position past the total.
  const position = ahead + 1;
  return { position, total: Math.max(total, position), estimatedReviewAt };
}
