// The SHA-512 backfill (spec/extensions.md §2.1): files stored before SHA-512 existed are read back from storage,
// in id order and a few at a time, and get their digest. Progress is the rows themselves (a file leaves the work
// list when its sha512 is written), so a restart resumes where the last run stopped. Memory stays flat: each
// object is streamed through the hash, never held whole.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { DB } from '../../../core/db/schema.js';
import type { Storage } from '../../../core/storage/storage.js';

export const HASH_BACKFILL_JOB = 'backfill-file-hashes';

export interface HashBackfillLimits {
  /** Files read per run at most. */
  files: number;
  /** Bytes read per run at most (a run stops after the file that crosses it). */
  bytes: number;
}

/** A minute's work on a small instance: 100 files or 512 MiB, whichever comes first. */
export const DEFAULT_BACKFILL_LIMITS: HashBackfillLimits = { files: 100, bytes: 512 * 1024 * 1024 };

export interface BackfillRun {
  hashed: number;
  /** Rows whose object is missing from storage: skipped, logged. */
  missing: number;
  /** Whether rows remain after this run's (bounded) batch. */
  more: boolean;
}

async function sha512Of(body: Readable): Promise<string> {
  const hash = createHash('sha512');
  await pipeline(
    body,
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        done();
      },
    }),
  );
  return hash.digest('hex');
}

export type HashBackfill = ReturnType<typeof createHashBackfill>;

export function createHashBackfill(deps: {
  db: Kysely<DB>;
  storage: Storage;
  limits?: HashBackfillLimits;
  warn: (details: Record<string, unknown>, message: string) => void;
}) {
  const { db, storage, warn } = deps;
  const limits = deps.limits ?? DEFAULT_BACKFILL_LIMITS;
  /**
   * The highest id this process has skipped because its object was missing. Rows at or below it are not read
   * again by this process, so a missing object is tried once per process start and never loops a run; a row
   * that fails for another reason (storage down) stops the run before the cursor passes it, and is retried.
   */
  let skippedThrough: string | null = null;

  return {
    async run(): Promise<BackfillRun> {
      let query = db
        .selectFrom('version_files')
        .select(['id', 'storage_key'])
        .where('sha512', 'is', null)
        .orderBy('id')
        .limit(limits.files + 1);
      if (skippedThrough !== null) query = query.where('id', '>', skippedThrough);
      const rows = await query.execute();
      const result: BackfillRun = { hashed: 0, missing: 0, more: rows.length > limits.files };
      let bytes = 0;
      for (const row of rows.slice(0, limits.files)) {
        if (bytes >= limits.bytes) {
          result.more = true;
          break;
        }
        const object = await storage.get(row.storage_key);
        if (object === undefined) {
          warn({ fileId: row.id, key: row.storage_key }, 'SHA-512 backfill: the object is missing; skipped');
          result.missing += 1;
          skippedThrough = row.id;
          continue;
        }
        const digest = await sha512Of(object.body);
        bytes += object.size;
        // Another process may have written it meanwhile: same digest, nothing to do.
        await db
          .updateTable('version_files')
          .set({ sha512: digest })
          .where('id', '=', row.id)
          .where('sha512', 'is', null)
          .execute();
        result.hashed += 1;
      }
      return result;
    },
  };
}
