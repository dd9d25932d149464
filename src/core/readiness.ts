// Readiness: one registry of dependency probes behind GET /ready. Each part of the app that depends on something
// outside the process (database, storage, Redis…) registers a probe here; /ready runs them all and answers 503
// when a critical one is down or the process is shutting down, so a load balancer stops sending traffic.
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type { Database } from './db/database.js';
import { isFullyMigrated } from './db/migrator.js';
import type { Storage } from './storage/storage.js';

export type ProbeStatus = 'ok' | 'degraded' | 'down';

/** Resolves with the dependency's state; a probe that throws or takes too long counts as 'down'. */
export type Probe = () => Promise<ProbeStatus>;

export interface ProbeOptions {
  /** A critical dependency that is down makes the whole process unready (503). */
  critical: boolean;
}

export interface ReadinessReport {
  /** 'degraded': a non-critical dependency is down or degraded; the process still serves. */
  status: 'ok' | 'degraded' | 'unavailable' | 'shutting_down';
  checks: Record<string, ProbeStatus>;
}

export interface Readiness {
  register(name: string, probe: Probe, options: ProbeOptions): void;
  /** From now on /ready answers 503 at once, without running probes, so the balancer drains this process. */
  setShuttingDown(): void;
  readonly shuttingDown: boolean;
  check(): Promise<ReadinessReport>;
}

/** A probe must not hold /ready longer than a balancer's health-check timeout (typically 5 s). */
export const PROBE_TIMEOUT_MS = 2000;

/** Turns a function that throws on failure into a probe: resolves → 'ok', throws → 'down'. */
export function probeOf(check: () => Promise<unknown>): Probe {
  return async () => {
    await check();
    return 'ok';
  };
}

async function run(probe: Probe): Promise<{ status: ProbeStatus; error?: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
  });
  try {
    return { status: await Promise.race([probe(), timeout]) };
  } catch (error) {
    return { status: 'down', error };
  } finally {
    clearTimeout(timer);
  }
}

export function createReadiness(logger?: FastifyBaseLogger): Readiness {
  const probes = new Map<string, { probe: Probe; critical: boolean }>();
  // Logged on change only: balancers poll /ready every few seconds and an outage must not flood the log.
  const lastStatus = new Map<string, ProbeStatus>();
  let shuttingDown = false;

  function noteChange(name: string, status: ProbeStatus, error: unknown): void {
    const previous = lastStatus.get(name) ?? 'ok';
    lastStatus.set(name, status);
    if (previous === status) return;
    const reason = error instanceof Error ? error.message : error === undefined ? undefined : String(error);
    if (status === 'ok') logger?.info({ check: name }, `readiness: ${name} is back`);
    else logger?.warn({ check: name, status, reason }, `readiness: ${name} is ${status}`);
  }

  return {
    register(name, probe, { critical }) {
      if (probes.has(name)) throw new Error(`readiness probe ${name} is already registered`);
      probes.set(name, { probe, critical });
    },
    setShuttingDown() {
      shuttingDown = true;
    },
    get shuttingDown() {
      return shuttingDown;
    },
    async check() {
      if (shuttingDown) return { status: 'shutting_down', checks: {} };
      const entries = [...probes.entries()];
      const results = await Promise.all(entries.map(([, { probe }]) => run(probe)));
      const checks: Record<string, ProbeStatus> = {};
      let status: ReadinessReport['status'] = 'ok';
      entries.forEach(([name, { critical }], index) => {
        const result = results[index]!;
        checks[name] = result.status;
        noteChange(name, result.status, result.error);
        if (result.status === 'ok') return;
        if (critical && result.status === 'down') status = 'unavailable';
        else if (status === 'ok') status = 'degraded';
      });
      return { status, checks };
    },
  };
}

/** The probes every process has: the database answers, its schema is current, storage answers. */
export function registerCoreProbes(readiness: Readiness, database: Database, storage: Storage): void {
  readiness.register(
    'database',
    probeOf(() => sql`select 1`.execute(database.db)),
    { critical: true },
  );
  readiness.register('migrations', async () => ((await isFullyMigrated(database.db)) ? 'ok' : 'down'), {
    critical: true,
  });
  readiness.register(
    'storage',
    probeOf(() => storage.ping()),
    { critical: true },
  );
}
