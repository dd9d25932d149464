// The scan-files job (spec/extensions.md §2.4): every due file (PENDING, or ERROR whose retry time came) is
// streamed from storage to clamd (INSTREAM, core/files/clamd.ts) and its verdict recorded:
//   CLEAN     → scan done; a PENDING version submitted by a trusted creator is approved now if every file is clean
//   INFECTED  → the signature, and a `file.infected` event for moderators, in the same transaction
//   TOO_LARGE → ERROR with reason TOO_LARGE and no retry (clamd's StreamMaxLength bounds what can be scanned)
//   no answer → ERROR (SCANNER_UNAVAILABLE / SCAN_FAILED), retried on the outbound schedule, then once a day
// The resource is locked before the file row is written, in the same order as uploads and deletions.
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../../core/clock.js';
import type { DialectName } from '../../../core/db/database.js';
import type { DB } from '../../../core/db/schema.js';
import { recordEvent, versionPlacement } from '../../../core/events/record.js';
import { ClamdError, scanStream } from '../../../core/files/clamd.js';
import type { ClamdAddress, ScanVerdict } from '../../../core/files/clamd.js';
import { RETRY_DELAYS_MS, retryDelayMs } from '../../../core/outbound/retry.js';
import type { Storage } from '../../../core/storage/storage.js';
import { autoApproveIfTrusted } from '../moderation/auto-approval.js';
import { findVersion } from '../versions.repo.js';
import { lockHead } from '../versions.service.js';
import * as repo from './scan.repo.js';
import type { ClaimedFile } from './scan.repo.js';
import type { ScanErrorReason } from './scan.schemas.js';

/** Files scanned at once by one process: clamd is CPU-bound, and other processes share it. */
const CONCURRENCY = 2;
/** A run stops claiming after this long, so one run never holds the job for long; the next run goes on. */
const RUN_BUDGET_MS = 60_000;
/** After the outbound schedule (30 s … 24 h) a file keeps being retried once a day until clamd answers. */
const LAST_DELAY_MS = RETRY_DELAYS_MS[RETRY_DELAYS_MS.length - 1]!;

export type ScanOutcome = ScanVerdict['result'] | ScanErrorReason;

export interface ScanRun {
  outcomes: Array<{ fileId: string; outcome: ScanOutcome }>;
  /** clamd could not be reached: the run stopped early and the job reports a failure. */
  unavailable: boolean;
}

export type FileScanner = ReturnType<typeof createFileScanner>;

export function createFileScanner(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  clock: Clock;
  storage: Storage;
  clamd: { address: ClamdAddress; timeoutMs: number };
  logger: FastifyBaseLogger;
}) {
  const { db, dialect, clock, storage, clamd, logger } = deps;
  // Longer than one scan can stay silent, so a lease only runs out when its process is gone.
  const leaseMs = clamd.timeoutMs * 2 + 60_000;

  async function verdictOf(file: ClaimedFile): Promise<ScanVerdict | { failed: ScanErrorReason }> {
    try {
      const object = await storage.get(file.storage_key);
      if (object === undefined) throw new Error(`stored object ${file.storage_key} is missing`);
      return await scanStream(clamd.address, object.body, { timeoutMs: clamd.timeoutMs });
    } catch (error) {
      const reason =
        error instanceof ClamdError && error.kind !== 'REFUSED' ? 'SCANNER_UNAVAILABLE' : 'SCAN_FAILED';
      logger.warn({ err: error, fileId: file.id, reason }, 'file scan failed; retried later');
      return { failed: reason };
    }
  }

  /** Writes the verdict under the resource lock; INFECTED records its event, CLEAN may approve the version. */
  async function record(file: ClaimedFile, verdict: ScanVerdict): Promise<void> {
    const at = clock.now().toISOString();
    await db.transaction().execute(async (trx) => {
      const target = await repo.findScannedFile(trx, file.id);
      if (target === undefined) return;
      const head = await lockHead(trx, dialect, target.resource_id);
      const written = await repo.recordScanResult(trx, file.id, {
        scan_status: verdict.result === 'TOO_LARGE' ? 'ERROR' : verdict.result,
        scan_signature:
          verdict.result === 'INFECTED'
            ? verdict.signature
            : verdict.result === 'TOO_LARGE'
              ? 'TOO_LARGE'
              : null,
        scanned_at: at,
        scan_next_at: null,
      });
      if (!written) return;
      const version = await findVersion(trx, target.resource_id, target.version_id);
      if (version === undefined) return;
      if (verdict.result === 'INFECTED') {
        await recordEvent(trx, {
          type: 'file.infected',
          at,
          actorId: null,
          subjectId: file.id,
          data: {
            versionId: version.id,
            resourceId: head.id,
            fileName: target.file_name,
            sha256: target.sha256,
            signature: verdict.signature,
          },
          placement: versionPlacement(head, version),
        });
      } else if (verdict.result === 'CLEAN' && version.status === 'PENDING') {
        // A trusted creator's submission waited for this scan; approved now when every file is clean.
        const submitterId = await repo.findSubmitterId(trx, version.id);
        if (submitterId !== null) await autoApproveIfTrusted(trx, { submitterId, head, version, at });
      }
    });
  }

  async function recordFailure(file: ClaimedFile, reason: ScanErrorReason): Promise<void> {
    const now = clock.now();
    const attempts = file.scan_attempts + 1;
    const delay = retryDelayMs(attempts) ?? LAST_DELAY_MS;
    await repo.recordScanResult(db, file.id, {
      scan_status: 'ERROR',
      scan_signature: reason,
      scanned_at: now.toISOString(),
      scan_next_at: new Date(now.getTime() + delay).toISOString(),
    });
  }

  async function scan(file: ClaimedFile): Promise<ScanOutcome> {
    const verdict = await verdictOf(file);
    if ('failed' in verdict) {
      await recordFailure(file, verdict.failed);
      return verdict.failed;
    }
    await record(file, verdict);
    return verdict.result;
  }

  return {
    /** Scans every due file (within the run budget); stops early when clamd cannot be reached. */
    async scanDue(): Promise<ScanRun> {
      const run: ScanRun = { outcomes: [], unavailable: false };
      const started = performance.now();
      while (!run.unavailable && performance.now() - started < RUN_BUDGET_MS) {
        const now = clock.now();
        const leaseUntil = new Date(now.getTime() + leaseMs).toISOString();
        const claimed = await repo.claimDueFiles(db, dialect, now.toISOString(), leaseUntil, CONCURRENCY);
        if (claimed.length === 0) break;
        const settled = await Promise.allSettled(claimed.map(scan));
        for (const [index, result] of settled.entries()) {
          const fileId = claimed[index]!.id;
          if (result.status === 'rejected') {
            // The lease runs out and a later run tries again.
            logger.error({ err: result.reason, fileId }, 'recording a file scan failed');
            continue;
          }
          run.outcomes.push({ fileId, outcome: result.value });
          if (result.value === 'SCANNER_UNAVAILABLE') run.unavailable = true;
        }
      }
      return run;
    },
  };
}
