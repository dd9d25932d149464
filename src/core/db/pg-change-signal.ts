// The change signal on PostgreSQL: a number that moves whenever the database may have changed, strict across any
// number of processes. Kept answers (core/db/change-cache.ts) are served only while it has not moved.
//
// Strictness: a write committed by another process must never be served stale once the writer's response has
// returned. An asynchronous signal (LISTEN/NOTIFY) cannot promise that: this process may answer the next request
// before its socket has delivered the notification. So every caller waits for a *fence*: a query that started
// after the caller asked. At most one fence runs at a time; callers arriving while one runs wait for the next one,
// which starts as the current one ends, and share it. Under load one round trip answers many requests; idle, a
// request pays one tiny round trip (instead of the one to three queries a rendering costs).
//
// What the fence reads: `pg_current_snapshot()` — xmin, xmax and the transaction ids in progress. A transaction
// that writes has an xid X. If X was in progress at the earlier snapshot, it is listed there and no longer once it
// has ended; if X was not yet assigned or above the earlier xmax, the later snapshot's xmax (one past the latest
// completed xid, which only grows) is above X. Either way a snapshot taken after a commit differs from every
// snapshot taken before it, so "same text" means "nothing committed in between" and anything else moves the
// generation. Read-only transactions get no xid and move nothing. No counter row (no write hot spot, nothing to
// add to every write), no trigger. False alarms (writes in other databases of the cluster, jobs, autovacuum's
// ANALYZE) only cost a rendering. The postmaster's start time rides along: a restart or a failover to another
// server always counts as a change, whatever its xids, and so does a failed fence (the gap is not watched).
import type pg from 'pg';

export const FENCE_SQL =
  "select pg_current_snapshot()::text || ' ' || pg_postmaster_start_time()::text as snapshot";

/** Reads the database's current state marker (the fence); any text that differs from the last means "changed". */
export type FenceQuery = () => Promise<string>;

/**
 * A coalescing fence over `query`: `changes()` resolves to a generation number read by a fence that started
 * after the call. The generation moves when the marker differs from the previous fence's, and after a failed
 * fence (which rejects its callers, like any query while the database is away).
 */
export function createFenceSignal(query: FenceQuery): () => Promise<number> {
  let generation = 0;
  let seen: string | undefined;
  let running: Promise<number> | undefined;
  /** The callers waiting for the fence after `running`. */
  let queued:
    { promise: Promise<number>; resolve(value: number): void; reject(error: unknown): void } | undefined;

  const observe = (marker: string): number => {
    if (marker !== seen) {
      if (seen !== undefined) generation += 1;
      seen = marker;
    }
    return generation;
  };
  const lost = (error: unknown): never => {
    // Whatever happened while the fence could not look (a restart, a restore) counts as a change.
    if (seen !== undefined) generation += 1;
    seen = undefined;
    throw error;
  };

  function run(): Promise<number> {
    const fence = query().then(observe, lost);
    running = fence;
    // Registered before any caller's reaction: the next fence has started before a waiter of this one resumes.
    fence.then(settle, settle);
    return fence;
  }

  function settle(): void {
    running = undefined;
    const waiting = queued;
    if (waiting === undefined) return;
    queued = undefined;
    run().then(waiting.resolve, waiting.reject);
  }

  return function changes(): Promise<number> {
    if (running === undefined) return run();
    if (queued === undefined) {
      let resolve!: (value: number) => void;
      let reject!: (error: unknown) => void;
      const promise = new Promise<number>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      queued = { promise, resolve, reject };
    }
    return queued.promise;
  };
}

/** The fence on a pool: a named statement, so each connection parses and plans it once. */
export function pgChangeSignal(
  pool: pg.Pool,
  observeQuery?: (seconds: number) => void,
): () => Promise<number> {
  const statement = { name: 'change_fence', text: FENCE_SQL };
  return createFenceSignal(async () => {
    const started = performance.now();
    try {
      const result = await pool.query<{ snapshot: string }>(statement);
      return result.rows[0]!.snapshot;
    } finally {
      observeQuery?.((performance.now() - started) / 1000);
    }
  });
}
