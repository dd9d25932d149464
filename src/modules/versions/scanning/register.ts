// Malware scanning with clamd (spec/extensions.md §2.4). Without CLAMAV_URL nothing is registered: files are
// inserted NOT_SCANNED and nothing is blocked. With it, uploads insert PENDING (version-files.service.ts) and the
// scan-files job drains them every few seconds.
//
// clamd is an operator-configured peer, usually on the same host or network: it is not subject to the outbound
// rules for public targets (those protect against URLs that users supply), like the database or S3 endpoint.
//
// clamd being down never makes the service unready: uploads go on and files wait PENDING or ERROR. It shows as
// `clamav: degraded` in /ready (like Redis), a warning per failed file in the log, and failed runs of the
// scan-files job (job_runs, and job_runs_total{job="scan-files",outcome="failed"} in /metrics).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../app.js';
import { describeAddress, ping } from '../../../core/files/clamd.js';
import type { SharedServices } from '../../shared-services.js';
import { createFileScanner } from './scan-files.js';

export const SCAN_FILES_JOB = 'scan-files';

export async function registerScanning(
  app: FastifyInstance,
  context: AppContext,
  _shared: SharedServices,
): Promise<void> {
  const { config, database, clock, storage, scheduler, readiness } = context;
  const clamd = config.clamav;
  if (clamd === undefined) return;
  const scanner = createFileScanner({
    db: database.db,
    dialect: database.dialect,
    clock,
    storage,
    clamd,
    logger: app.log,
  });
  scheduler.register({
    name: SCAN_FILES_JOB,
    // A file uploaded now is scanned within seconds; an idle run is one indexed query.
    intervalMs: 5_000,
    run: async () => {
      const run = await scanner.scanDue();
      if (run.unavailable) {
        throw new Error(`clamd at ${describeAddress(clamd.address)} is unreachable; files wait for a retry`);
      }
    },
  });
  readiness.register(
    'clamav',
    async () => {
      try {
        await ping(clamd.address, { timeoutMs: Math.min(clamd.timeoutMs, 1500) });
        return 'ok';
      } catch {
        return 'degraded';
      }
    },
    { critical: false },
  );
}
