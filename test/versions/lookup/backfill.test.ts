// The SHA-512 backfill job (spec/extensions.md §2.1): files stored before SHA-512 existed get their digest read
// back from storage, a bounded batch per run, in id order; a missing object is skipped and logged, never retried
// in a loop; runs are idempotent; the job is registered with the scheduler under its name.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHashBackfill, HASH_BACKFILL_JOB } from '../../../src/modules/versions/lookup/hash-backfill.js';
import type { HashBackfillLimits } from '../../../src/modules/versions/lookup/hash-backfill.js';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { createUser } from '../../helpers/factories.js';
import type { TestUser } from '../../helpers/factories.js';
import { createResource } from '../../resources/helpers.js';
import { createVersion, uploadFile } from '../helpers.js';
import { digest, uniqueContent } from './helpers.js';

let t: TestApp;
let owner: TestUser;
let resourceId: string;

beforeAll(async () => {
  t = await buildTestApp();
  owner = await createUser(t.app);
  resourceId = (await createResource(t.app, owner)).id;
});
afterAll(async () => t.close());

interface OldFile {
  id: string;
  key: string;
  sha512: string;
}

/** Uploads files, then makes them look stored before SHA-512 existed (sha512 NULL). */
async function oldFiles(contents: Buffer[]): Promise<OldFile[]> {
  const { db } = t.app.context.database;
  const version = await createVersion(t.app, owner, resourceId);
  const files: OldFile[] = [];
  for (const [index, data] of contents.entries()) {
    const file = await uploadFile(t.app, owner, resourceId, version.id, { data, name: `old-${index}.txt` });
    const row = await db
      .selectFrom('version_files')
      .select('storage_key')
      .where('id', '=', file.id)
      .executeTakeFirstOrThrow();
    files.push({ id: file.id, key: row.storage_key, sha512: digest('sha512', data) });
  }
  await db
    .updateTable('version_files')
    .set({ sha512: null })
    .where(
      'id',
      'in',
      files.map((file) => file.id),
    )
    .execute();
  return files.sort((a, b) => (a.id < b.id ? -1 : 1));
}

async function digests(files: OldFile[]): Promise<Array<string | null>> {
  const rows = await t.app.context.database.db
    .selectFrom('version_files')
    .select(['id', 'sha512'])
    .where(
      'id',
      'in',
      files.map((file) => file.id),
    )
    .execute();
  const byId = new Map(rows.map((row) => [row.id, row.sha512]));
  return files.map((file) => byId.get(file.id) ?? null);
}

const warnings: Array<Record<string, unknown>> = [];
const backfill = (limits?: HashBackfillLimits) =>
  createHashBackfill({
    db: t.app.context.database.db,
    storage: t.app.context.storage,
    ...(limits === undefined ? {} : { limits }),
    warn: (details) => warnings.push(details),
  });

/** Clears what earlier tests left: every file has its digest again. */
beforeEach(async () => {
  warnings.length = 0;
  await backfill().run();
  await t.app.context.database.db
    .updateTable('version_files')
    .set({ sha512: 'done-by-an-earlier-test' })
    .where('sha512', 'is', null)
    .execute();
});

describe('SHA-512 backfill', () => {
  it('fills the digests read back from storage, in bounded batches, in id order', async () => {
    const files = await oldFiles(Array.from({ length: 5 }, () => uniqueContent('old')));
    const job = backfill({ files: 2, bytes: 1024 * 1024 });
    expect(await job.run()).toEqual({ hashed: 2, missing: 0, more: true });
    expect(await digests(files)).toEqual([files[0]!.sha512, files[1]!.sha512, null, null, null]);
    expect(await job.run()).toEqual({ hashed: 2, missing: 0, more: true });
    expect(await job.run()).toEqual({ hashed: 1, missing: 0, more: false });
    expect(await digests(files)).toEqual(files.map((file) => file.sha512));
    // Nothing left: idempotent, and the digests stay.
    expect(await job.run()).toEqual({ hashed: 0, missing: 0, more: false });
    expect(await digests(files)).toEqual(files.map((file) => file.sha512));
  });

  it('stops a run once its byte budget is spent (after the file that crosses it)', async () => {
    const files = await oldFiles([Buffer.alloc(3000, 1), Buffer.alloc(3000, 2), Buffer.alloc(3000, 3)]);
    const job = backfill({ files: 100, bytes: 5000 });
    expect(await job.run()).toEqual({ hashed: 2, missing: 0, more: true });
    expect(await job.run()).toEqual({ hashed: 1, missing: 0, more: false });
    expect(await digests(files)).toEqual(files.map((file) => file.sha512));
  });

  it('a missing object is logged and skipped, the others done; not retried until the process restarts', async () => {
    const files = await oldFiles(Array.from({ length: 4 }, () => uniqueContent('gone')));
    await t.app.context.storage.delete(files[1]!.key);
    const job = backfill({ files: 2, bytes: 1024 * 1024 });
    expect(await job.run()).toEqual({ hashed: 1, missing: 1, more: true });
    expect(await job.run()).toEqual({ hashed: 2, missing: 0, more: false });
    expect(await digests(files)).toEqual([files[0]!.sha512, null, files[2]!.sha512, files[3]!.sha512]);
    expect(warnings).toEqual([{ fileId: files[1]!.id, key: files[1]!.key }]);
    // The same process never reads it again: a run with only missing objects left does nothing.
    expect(await job.run()).toEqual({ hashed: 0, missing: 0, more: false });
    expect(warnings).toHaveLength(1);
    // A new process (a restart) tries once more, and fills it if the object came back.
    expect(await backfill().run()).toEqual({ hashed: 0, missing: 1, more: false });
    await t.app.context.storage.put(files[1]!.key, Buffer.from('restored'), { contentType: 'text/plain' });
    expect(await backfill().run()).toEqual({ hashed: 1, missing: 0, more: false });
    expect((await digests(files))[1]).toBe(digest('sha512', 'restored'));
  });

  it('two runs at once write each digest once and agree (the write is conditional on sha512 NULL)', async () => {
    const files = await oldFiles(Array.from({ length: 6 }, () => uniqueContent('race')));
    const [a, b] = await Promise.all([backfill().run(), backfill().run()]);
    expect(a.missing + b.missing).toBe(0);
    expect(await digests(files)).toEqual(files.map((file) => file.sha512));
  });

  it('runs as the scheduled job backfill-file-hashes', async () => {
    const files = await oldFiles([uniqueContent('scheduled'), uniqueContent('scheduled')]);
    expect(t.app.context.scheduler.jobs()).toContain(HASH_BACKFILL_JOB);
    expect(await t.app.context.scheduler.runNow(HASH_BACKFILL_JOB)).toBe(true);
    expect(await digests(files)).toEqual(files.map((file) => file.sha512));
    // The file objects show the digest once it is filled.
    const shown = await t.app.inject({
      method: 'GET',
      url: `/version-files/${files[0]!.sha512}`,
      headers: owner.headers,
    });
    expect(shown.statusCode, shown.body).toBe(200);
    expect((shown.json() as { file: { hashes: { sha512: string } } }).file.hashes.sha512).toBe(
      files[0]!.sha512,
    );
  });
});
