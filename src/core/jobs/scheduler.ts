// In-process scheduler for periodic jobs. On PostgreSQL, a transaction-scoped advisory lock makes sure
// only one process of a scaled-out deployment runs a given job at a time; the others skip that tick.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/database.js';

export interface Job {
  name: string;
  intervalMs: number;
  run(): Promise<void>;
}

export interface Scheduler {
  register(job: Job): void;
  /** Runs one job now (under the same lock). Returns false when another process holds it. */
  runNow(name: string): Promise<boolean>;
  start(): void;
  stop(): Promise<void>;
  jobs(): string[];
}

/** Stable 63-bit lock key from the job name. */
function lockKey(name: string): bigint {
  return BigInt.asIntN(64, BigInt(`0x${createHash('sha256').update(name).digest('hex').slice(0, 16)}`));
}

export function createScheduler({
  database,
  logger,
}: {
  database: Database;
  logger: FastifyBaseLogger;
}): Scheduler {
  const jobs = new Map<string, Job>();
  const timers: NodeJS.Timeout[] = [];
  const running = new Set<Promise<unknown>>();

  async function runExclusive(job: Job): Promise<boolean> {
    if (database.dialect === 'sqlite') {
      await job.run();
      return true;
    }
    // The lock transaction only holds the lock; the job does its own queries and storage I/O outside it.
    return database.db.transaction().execute(async (trx) => {
      const { rows } = await sql<{
        locked: boolean;
      }>`select pg_try_advisory_xact_lock(${lockKey(job.name).toString()}::bigint) as locked`.execute(trx);
      if (rows[0]?.locked !== true) return false;
      await job.run();
      return true;
    });
  }

  async function tick(job: Job): Promise<void> {
    const run = runExclusive(job).catch((error: unknown) =>
      logger.error({ err: error, job: job.name }, 'job failed'),
    );
    running.add(run);
    await run;
    running.delete(run);
  }

  return {
    register(job) {
      jobs.set(job.name, job);
    },
    async runNow(name) {
      const job = jobs.get(name);
      if (job === undefined) throw new Error(`Unknown job ${name}`);
      return runExclusive(job);
    },
    start() {
      for (const job of jobs.values()) {
        const timer = setInterval(() => void tick(job), job.intervalMs);
        timer.unref();
        timers.push(timer);
      }
    },
    async stop() {
      for (const timer of timers.splice(0)) clearInterval(timer);
      await Promise.allSettled([...running]);
    },
    jobs: () => [...jobs.keys()],
  };
}
