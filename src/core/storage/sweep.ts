// The storage sweep (issue 11, defect 7): a crash between writing an object and writing its row, or between
// deleting a row and deleting its object, leaves an object nothing points at; a crash mid-upload leaves an
// unfinished S3 multipart upload (or a local temporary file). This job removes both once they are older than a
// grace period, so an upload still in progress is never touched.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { DB } from '../db/schema.js';
import { referencedKeys } from './references.repo.js';
import type { Storage } from './storage.js';

/**
 * Only the prefixes the application writes user content under are swept: `defaults/` (built-in assets) and
 * anything else an operator keeps in the same bucket are never touched.
 */
export const SWEPT_PREFIXES = ['images/', 'files/'] as const;

export interface SweepOptions {
  db: Kysely<DB>;
  storage: Storage;
  clock: Clock;
  /** Objects and uploads younger than this are left alone. */
  graceMs: number;
  /** Objects per listing page; each page costs one reference query. */
  pageSize?: number;
}

export interface SweepResult {
  scanned: number;
  deleted: number;
  /** Undefined when the storage service cannot list unfinished uploads (see Storage.abortIncompleteUploads). */
  abortedUploads: number | undefined;
}

export async function sweepStorage({
  db,
  storage,
  clock,
  graceMs,
  pageSize = 500,
}: SweepOptions): Promise<SweepResult> {
  const cutoff = new Date(clock.now().getTime() - graceMs);
  const result: SweepResult = { scanned: 0, deleted: 0, abortedUploads: 0 };
  for (const prefix of SWEPT_PREFIXES) {
    for await (const page of storage.list({ prefix, pageSize })) {
      result.scanned += page.length;
      const old = page.filter((object) => object.lastModified < cutoff).map((object) => object.key);
      const referenced = await referencedKeys(db, old);
      for (const key of old) {
        if (referenced.has(key)) continue;
        // Content-addressed image keys can be written again (the same picture uploaded anew) between the
        // listing and now: a fresh write means a row is about to point at it.
        const current = await storage.head(key);
        if (current === undefined || (current.lastModified ?? cutoff) >= cutoff) continue;
        await storage.delete(key);
        result.deleted += 1;
      }
    }
    const aborted = await storage.abortIncompleteUploads({ prefix, startedBefore: cutoff });
    result.abortedUploads = aborted === undefined ? undefined : (result.abortedUploads ?? 0) + aborted;
  }
  return result;
}
