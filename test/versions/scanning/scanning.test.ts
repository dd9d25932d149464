// Malware scanning (spec/extensions.md §2.4) through the real app against a real clamd with a signature database
// written by the test: PENDING → CLEAN / INFECTED, INFECTED never served (file, version redirect, ZIP, a kept
// download decision) and blocking submit and approval, `file.infected` for moderators only, clamd down → ERROR
// and retried after the backoff once it is back, the stream limit, and the claim's lease.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDueFiles } from '../../../src/modules/versions/scanning/scan.repo.js';
import { SCAN_FILES_JOB } from '../../../src/modules/versions/scanning/register.js';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { INFECTED_SAMPLE, SAMPLE_SIGNATURE, startClamd } from '../../helpers/clamd.js';
import type { Clamd } from '../../helpers/clamd.js';
import type { TestUser } from '../../helpers/factories.js';
import { expectError } from '../../helpers/http.js';
import { readEvents } from '../../events/helpers/feed.js';
import { createResource, createResourceCast, moderate, resourceFor } from '../../resources/helpers.js';
import type { ResourceBody, ResourceCast } from '../../resources/helpers.js';
import { act, createVersion, readVersion, unzip, uploadFile, versionUrl } from '../helpers.js';

/** clamd's StreamMaxLength here: small, so that "larger than the limit" is a small upload. */
const STREAM_LIMIT = 64 * 1024;
const SIGNATURE = `${SAMPLE_SIGNATURE}.UNOFFICIAL`;
const infected = () => ({ data: INFECTED_SAMPLE, name: 'sample.txt' });
const clean = (name = 'clean.txt') => ({ data: Buffer.from(`clean content of ${name}\n`), name });

let clamd: Clamd;
let t: TestApp;
let cast: ResourceCast;
let resource: ResourceBody;

beforeAll(async () => {
  clamd = await startClamd({ streamMaxBytes: STREAM_LIMIT });
  t = await buildTestApp({ CLAMAV_URL: clamd.url, CLAMAV_TIMEOUT_MS: '5000', EVENT_FEED_SETTLE_MS: '0' });
  cast = await createResourceCast(t.app);
  resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
});
afterAll(async () => {
  await t?.close();
  await clamd?.close();
});

const scanNow = () => t.app.context.scheduler.runNow(SCAN_FILES_JOB);

interface ScanBody {
  status: string;
  signature: string | null;
  reason: string | null;
  scannedAt: string | null;
}

async function scanOf(versionId: string, fileId: string, user: TestUser = cast.owner): Promise<ScanBody> {
  const version = await readVersion(t.app, user, resource.id, versionId);
  const file = version.files.find((candidate) => candidate.id === fileId);
  expect(file).toBeDefined();
  return (file as unknown as { scan: ScanBody }).scan;
}

/** A DRAFT version of the shared resource with these files; returns the version and the file ids. */
async function draftWith(...files: Array<{ data: Buffer; name: string }>) {
  const version = await createVersion(t.app, cast.owner, resource.id);
  const fileIds: string[] = [];
  for (const file of files)
    fileIds.push((await uploadFile(t.app, cast.owner, resource.id, version.id, file)).id);
  return { versionId: version.id, fileIds };
}

function download(versionId: string, fileId?: string, user: TestUser | null = cast.owner) {
  return t.app.inject({
    method: 'GET',
    url: `${versionUrl(resource.id, versionId)}/download${fileId === undefined ? '' : `/${fileId}`}`,
    headers: user?.headers ?? {},
  });
}

function action(
  versionId: string,
  name: 'submit' | 'approve',
  user: TestUser,
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url: `${versionUrl(resource.id, versionId)}/${name}`,
    headers: user.headers,
  });
}

describe('verdicts', () => {
  it('a clean upload is PENDING, then CLEAN once the job ran', async () => {
    expect(t.app.context.scheduler.jobs()).toContain(SCAN_FILES_JOB);
    const { versionId, fileIds } = await draftWith(clean());
    expect(await scanOf(versionId, fileIds[0]!)).toEqual({
      status: 'PENDING',
      signature: null,
      reason: null,
      scannedAt: null,
    });
    t.clock.advance(1000);
    expect(await scanNow()).toBe(true);
    expect(await scanOf(versionId, fileIds[0]!)).toEqual({
      status: 'CLEAN',
      signature: null,
      reason: null,
      scannedAt: t.clock.now().toISOString(),
    });
    // Scanned once: a later run leaves it as it is.
    t.clock.advance(60_000);
    await scanNow();
    expect((await scanOf(versionId, fileIds[0]!)).scannedAt).not.toBe(t.clock.now().toISOString());
  });

  it('the signed sample is INFECTED with its signature, shown to the public too once the version is', async () => {
    const { versionId, fileIds } = await draftWith(infected());
    await scanNow();
    expect(await scanOf(versionId, fileIds[0]!)).toEqual({
      status: 'INFECTED',
      signature: SIGNATURE,
      reason: null,
      scannedAt: t.clock.now().toISOString(),
    });
  });
});

describe('an INFECTED file is never served', () => {
  it('404 on its download and on the version download, for the owner side and moderators alike', async () => {
    const { versionId, fileIds } = await draftWith(infected());
    await scanNow();
    for (const user of [cast.owner, cast.moderator, cast.admin]) {
      expectError(await download(versionId, fileIds[0]!, user), 404, 'NOT_FOUND');
      expectError(await download(versionId, undefined, user), 404, 'NOT_FOUND');
    }
  });

  it('left out of a version download: the redirect goes to the clean file, the ZIP holds only clean ones', async () => {
    const two = await draftWith(clean('a.txt'), infected());
    const three = await draftWith(clean('a.txt'), infected(), clean('b.txt'));
    await scanNow();
    const redirect = await download(two.versionId);
    expect(redirect.statusCode, redirect.body).toBe(302);
    expect(redirect.headers.location).toContain(two.fileIds[0]);
    expect(redirect.headers.location).not.toContain(two.fileIds[1]);
    const zip = await download(three.versionId);
    expect(zip.statusCode, zip.body).toBe(200);
    expect([...unzip(zip.rawPayload).keys()].sort()).toEqual(['a.txt', 'b.txt']);
  });

  it('a download decision kept from before the scan is not reused once the file is INFECTED', async () => {
    const { versionId, fileIds } = await draftWith(infected());
    // Before its scan the file is served to the owner side (the version is not public), twice: the second
    // answer comes from the kept decision on SQLite.
    expect((await download(versionId, fileIds[0]!)).statusCode).toBe(302);
    expect((await download(versionId, fileIds[0]!)).statusCode).toBe(302);
    await scanNow();
    expectError(await download(versionId, fileIds[0]!), 404, 'NOT_FOUND');
  });
});

describe('an INFECTED file blocks submit and approval', () => {
  it('submit → 409 FILE_INFECTED naming the file; after deleting it the version can be submitted', async () => {
    const { versionId, fileIds } = await draftWith(clean(), infected());
    await scanNow();
    const refused = expectError(await action(versionId, 'submit', cast.owner), 409, 'FILE_INFECTED');
    expect(refused.details).toEqual({ fileIds: [fileIds[1]] });
    expect((await readVersion(t.app, cast.owner, resource.id, versionId)).status).toBe('DRAFT');
    const removed = await t.app.inject({
      method: 'DELETE',
      url: `${versionUrl(resource.id, versionId)}/files/${fileIds[1]}`,
      headers: cast.owner.headers,
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect((await action(versionId, 'submit', cast.owner)).statusCode).toBe(200);
  });

  it('submitted before its scan: approval → 409 FILE_INFECTED once the scan found it; rejection still works', async () => {
    const { versionId } = await draftWith(infected());
    await act(t.app, cast.owner, resource.id, versionId, 'submit');
    await scanNow();
    expectError(await action(versionId, 'approve', cast.moderator), 409, 'FILE_INFECTED');
    expect((await readVersion(t.app, cast.owner, resource.id, versionId)).status).toBe('PENDING');
    await act(t.app, cast.moderator, resource.id, versionId, 'reject', { reason: 'infected' });
    // Resubmitting it unchanged is refused too.
    const resubmit = await t.app.inject({
      method: 'POST',
      url: `${versionUrl(resource.id, versionId)}/resubmit`,
      headers: cast.owner.headers,
    });
    expectError(resubmit, 409, 'FILE_INFECTED');
  });

  it('a wrong status still answers INVALID_STATUS_TRANSITION first', async () => {
    const { versionId } = await draftWith(infected());
    await scanNow();
    expectError(await action(versionId, 'approve', cast.moderator), 409, 'INVALID_STATUS_TRANSITION');
  });
});

describe('file.infected', () => {
  it('is recorded once, with the signature, and read by moderators only', async () => {
    const { versionId, fileIds } = await draftWith(infected());
    await scanNow();
    await scanNow();
    const query = { types: 'file.infected', resourceId: resource.id, limit: 100 };
    const forModerator = (await readEvents(t.app, cast.moderator, query)).events.filter(
      (event) => event.subject.id === fileIds[0],
    );
    expect(forModerator).toEqual([
      expect.objectContaining({
        type: 'file.infected',
        actor: null,
        subject: { kind: 'file', id: fileIds[0] },
        data: {
          versionId,
          resourceId: resource.id,
          fileName: 'sample.txt',
          sha256: expect.any(String),
          signature: SIGNATURE,
        },
      }),
    ]);
    for (const reader of [cast.owner, cast.contributor, cast.stranger, null]) {
      expect((await readEvents(t.app, reader, query)).events).toEqual([]);
    }
    // The owner does read the same file's upload event: the audience, not the filter, hides it.
    const uploads = await readEvents(t.app, cast.owner, {
      types: 'file.uploaded',
      resourceId: resource.id,
      limit: 100,
    });
    expect(uploads.events.some((event) => event.subject.id === fileIds[0])).toBe(true);
  });
});

describe('clamd down', () => {
  it('ERROR SCANNER_UNAVAILABLE, a failed job run and /ready degraded; retried after the backoff when back', async () => {
    await clamd.stop();
    try {
      const { versionId, fileIds } = await draftWith(clean());
      // Uploads go on while clamd is away.
      expect((await scanOf(versionId, fileIds[0]!)).status).toBe('PENDING');
      await expect(scanNow()).rejects.toThrow(/unreachable/);
      const failedAt = t.clock.now().toISOString();
      expect(await scanOf(versionId, fileIds[0]!)).toEqual({
        status: 'ERROR',
        signature: null,
        reason: 'SCANNER_UNAVAILABLE',
        scannedAt: failedAt,
      });
      const ready = await t.app.inject({ method: 'GET', url: '/ready' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toMatchObject({ status: 'degraded', checks: { clamav: 'degraded' } });
      const run = await t.app.context.database.db
        .selectFrom('job_runs')
        .select(['last_status', 'last_error'])
        .where('name', '=', SCAN_FILES_JOB)
        .executeTakeFirstOrThrow();
      expect(run.last_status).toBe('FAILED');

      await clamd.start();
      // Not due yet: the first retry waits about 30 s (±10 %).
      t.clock.advance(25_000);
      await scanNow();
      expect((await scanOf(versionId, fileIds[0]!)).status).toBe('ERROR');
      t.clock.advance(10_000);
      await scanNow();
      expect(await scanOf(versionId, fileIds[0]!)).toMatchObject({ status: 'CLEAN', reason: null });
      expect((await t.app.inject({ method: 'GET', url: '/ready' })).json()).toMatchObject({
        checks: { clamav: 'ok' },
      });
    } finally {
      await clamd.start().catch(() => undefined);
    }
  });
});

describe("clamd's stream limit", () => {
  it('a larger file is ERROR TOO_LARGE and never retried; it does not block submission', async () => {
    const big = { data: Buffer.alloc(STREAM_LIMIT + 4096, 7), name: 'big.bin' };
    const atLimit = { data: Buffer.alloc(STREAM_LIMIT, 8), name: 'limit.bin' };
    const { versionId, fileIds } = await draftWith(big, atLimit);
    await scanNow();
    const scannedAt = t.clock.now().toISOString();
    expect(await scanOf(versionId, fileIds[0]!)).toEqual({
      status: 'ERROR',
      signature: null,
      reason: 'TOO_LARGE',
      scannedAt,
    });
    expect((await scanOf(versionId, fileIds[1]!)).status).toBe('CLEAN');
    t.clock.advance(3 * 24 * 60 * 60 * 1000);
    await scanNow();
    expect((await scanOf(versionId, fileIds[0]!)).scannedAt).toBe(scannedAt);
    expect((await action(versionId, 'submit', cast.owner)).statusCode).toBe(200);
  });
});

describe('the claim', () => {
  it('leases what it takes: a second claim (another process) gets nothing until the lease ran out', async () => {
    const { fileIds } = await draftWith(clean());
    const { db, dialect } = t.app.context.database;
    const now = t.clock.now();
    const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
    const [first, second] = await Promise.all([
      claimDueFiles(db, dialect, at(0), at(60_000), 100),
      claimDueFiles(db, dialect, at(0), at(60_000), 100),
    ]);
    const taken = [...first, ...second].filter((file) => file.id === fileIds[0]);
    expect(taken).toHaveLength(1);
    const during = await claimDueFiles(db, dialect, at(59_000), at(120_000), 100);
    expect(during.map((file) => file.id)).not.toContain(fileIds[0]);
    const again = await claimDueFiles(db, dialect, at(60_000), at(120_000), 100);
    expect(again.map((file) => file.id)).toContain(fileIds[0]);
  });
});

describe("a trusted creator's submission that waited for its scan", () => {
  it('is approved automatically when the last scan is CLEAN; an untrusted one or an INFECTED file waits', async () => {
    const trusted = cast.maintainer;
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/admin/users/${trusted.id}`,
      headers: cast.admin.headers,
      payload: { trusted: true },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    const own = await createResource(t.app, trusted);
    await moderate(t.app, cast.moderator, own.id, 'APPROVE');
    const submitted = async (user: TestUser, resourceId: string, file: { data: Buffer; name: string }) => {
      const version = await createVersion(t.app, user, resourceId);
      await uploadFile(t.app, user, resourceId, version.id, file);
      const moved = await act(t.app, user, resourceId, version.id, 'submit');
      // The file is not scanned yet: no automatic approval at submission.
      expect(moved.status).toBe('PENDING');
      return version.id;
    };
    const cleanOne = await submitted(trusted, own.id, clean('trusted.txt'));
    const infectedOne = await submitted(trusted, own.id, infected());
    const untrusted = await submitted(cast.owner, resource.id, clean('untrusted.txt'));
    await scanNow();
    expect(await readVersion(t.app, trusted, own.id, cleanOne)).toMatchObject({
      status: 'APPROVED',
      isLatest: true,
    });
    const history = await t.app.context.database.db
      .selectFrom('version_moderation_events')
      .select(['action', 'actor_id', 'automatic'])
      .where('version_id', '=', cleanOne)
      .where('action', '=', 'APPROVE')
      .execute();
    expect(history).toEqual([{ action: 'APPROVE', actor_id: null, automatic: expect.anything() }]);
    expect(Boolean(history[0]!.automatic)).toBe(true);
    expect((await readVersion(t.app, trusted, own.id, infectedOne)).status).toBe('PENDING');
    expect((await readVersion(t.app, cast.owner, resource.id, untrusted)).status).toBe('PENDING');
  });
});
