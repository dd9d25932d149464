// In-process scheduler for periodic jobs. Whether a job is due comes from the database (job_runs), not from how
// long this process has been up: a process runs what is due when it starts, then wakes when the next run falls
// due. A run is claimed by a conditional update of job_runs, so across processes each due run happens once; on
// PostgreSQL a transaction-scoped advisory lock also keeps two processes from running one job at the same time.
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import { systemClock } from '../clock.js';
import type { Clock } from '../clock.js';
import type { Database } from '../db/database.js';
import { claimRun, readLastStart, recordFinish } from './job-runs.repo.js';

export interface Job {
  name: string;
  intervalMs: number;
  run(): Promise<void>;
}

/** One finished run, for observers such as metrics. */
export interface JobRun {
  job: string;
  ok: boolean;
  durationMs: number;
}

export type JobRunListener = (run: JobRun) => void;

export interface Scheduler {
  register(job: Job): void;
  /**
   * Runs one job now, due or not (an operator's `jobs run`), under the same lock, and records the run.
   * Returns false when another process holds the lock; rejects with the job's error when it fails.
   */
  runNow(name: string): Promise<boolean>;
  /** Runs every job that is due once; returns the names that ran. Failures are recorded and logged. */
  runDue(): Promise<string[]>;
  /** Runs what is due, then keeps waking each job when it falls due. Resolves after the first pass. */
  start(): Promise<void>;
  stop(): Promise<void>;
  jobs(): string[];
  /** Called after every run this process makes (not for skipped ticks). */
  observe(listener: JobRunListener): void;
}

type Outcome = { ran: true; error?: unknown } | { ran: false };

/** Never wake more often than this, so a clock far behind the database cannot spin the timer. */
const MIN_WAKE_MS = 1000;

/** A job's half of its advisory lock key: 32 bits of its name's hash (the schema's hash is the other half). */
function lockKey(name: string): number {
  return createHash('sha256').update(name).digest().readInt32BE(0);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function createScheduler({
  database,
  logger,
  clock = systemClock,
}: {
  database: Database;
  logger: FastifyBaseLogger;
  clock?: Clock;
}): Scheduler {
  const { db } = database;
  const jobs = new Map<string, Job>();
  const listeners: JobRunListener[] = [];
  const timers = new Map<string, NodeJS.Timeout>();
  const running = new Set<Promise<unknown>>();
  let stopped = true;

  function notify(run: JobRun): void {
    for (const listener of listeners) {
      try {
        listener(run);
      } catch (error) {
        logger.warn({ err: error, job: run.job }, 'job run listener failed');
      }
    }
  }

  /** Claims the run (due only, unless forced), runs it and records how it ended. */
  async function claimAndRun(job: Job, force: boolean): Promise<Outcome> {
    const now = clock.now().getTime();
    const dueBefore = force ? undefined : new Date(now - job.intervalMs).toISOString();
    if (!(await claimRun(db, job.name, new Date(now).toISOString(), dueBefore))) return { ran: false };
    const started = performance.now();
    let error: unknown;
    let failed = false;
    try {
      await job.run();
    } catch (caught) {
      failed = true;
      error = caught;
    }
    await recordFinish(db, job.name, clock.now().toISOString(), failed ? describe(error) : undefined);
    notify({ job: job.name, ok: !failed, durationMs: performance.now() - started });
    return failed ? { ran: true, error } : { ran: true };
  }

  async function runExclusive(job: Job, force: boolean): Promise<Outcome> {
    if (database.dialect === 'sqlite') return claimAndRun(job, force);
    // The lock transaction only holds the lock; the job does its own queries and storage I/O outside it. The
    // lock is the deployment's: keyed by its schema and the job, so that deployments (or test runs) sharing one
    // database in separate schemas never skip each other's runs.
    return db.transaction().execute(async (trx) => {
      const { rows } = await sql<{
        locked: boolean;
      }>`select pg_try_advisory_xact_lock(hashtext(current_schema()), ${lockKey(job.name)}::int) as locked`.execute(
        trx,
      );
      if (rows[0]?.locked !== true) return { ran: false };
      return claimAndRun(job, force);
    });
  }

  function track<T>(work: Promise<T>): Promise<T> {
    running.add(work);
    return work.finally(() => running.delete(work));
  }

  /** Runs the job if due; logs instead of throwing, so one failing job never stops the others. */
  async function runIfDue(job: Job): Promise<boolean> {
    try {
      const outcome = await track(runExclusive(job, false));
      if (outcome.ran && 'error' in outcome)
        logger.error({ err: outcome.error, job: job.name }, 'job failed');
      return outcome.ran;
    } catch (error) {
      logger.error({ err: error, job: job.name }, 'job could not be started');
      return false;
    }
  }

  /** Sleeps until the job's next run falls due by the database's record, then tries it. */
  async function scheduleNext(job: Job): Promise<void> {
    let delay = job.intervalMs;
    try {
      const lastStart = await readLastStart(db, job.name);
      if (lastStart !== undefined) delay = Date.parse(lastStart) + job.intervalMs - clock.now().getTime();
    } catch (error) {
      logger.warn({ err: error, job: job.name }, 'could not read when the job last ran');
    }
    if (stopped) return;
    const timer = setTimeout(
      () => {
        timers.delete(job.name);
        void runIfDue(job).then(() => (stopped ? undefined : scheduleNext(job)));
      },
      Math.min(Math.max(delay, MIN_WAKE_MS), job.intervalMs),
    );
    timer.unref();
    timers.set(job.name, timer);
  }

  async function runDue(): Promise<string[]> {
    const ran: string[] = [];
    for (const job of jobs.values()) if (await runIfDue(job)) ran.push(job.name);
    return ran;
  }

  return {
    register(job) {
      jobs.set(job.name, job);
    },
    async runNow(name) {
      const job = jobs.get(name);
      if (job === undefined) throw new Error(`Unknown job ${name}`);
      const outcome = await track(runExclusive(job, true));
      if (outcome.ran && 'error' in outcome) throw outcome.error;
      return outcome.ran;
    },
    runDue,
    async start() {
      stopped = false;
      await track(runDue());
      if (stopped) return;
      await Promise.all([...jobs.values()].map((job) => scheduleNext(job)));
    },
    async stop() {
      stopped = true;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      await Promise.allSettled([...running]);
    },
    jobs: () => [...jobs.keys()],
    observe(listener) {
      listeners.push(listener);
    },
  };
}
