// Downloads: the 302 to a signed URL (followed through /cdn locally, by fetch on S3), the ZIP of a version
// (unpacked and compared byte for byte), and counting once per file or version, client key and UTC day.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { expectError } from '../helpers/http.js';
import { pngImage } from '../fixtures/images.js';
import { createResourceCast, moderate, resourceFor } from '../resources/helpers.js';
import type { ResourceBody, ResourceCast } from '../resources/helpers.js';
import { act, readVersion, unzip, versionIn, versionUrl } from './helpers.js';
import type { VersionBody } from './helpers.js';

let t: TestApp;
let cast: ResourceCast;

beforeAll(async () => {
  t = await buildTestApp();
  cast = await createResourceCast(t.app);
});
afterAll(async () => t.close());

const actors = () => ({ editor: cast.owner, moderator: cast.moderator });

/** Fetches what a signed Location points at: through the app's /cdn for local storage, over HTTP for S3. */
async function follow(
  location: string,
): Promise<{ status: number; body: Buffer; disposition: string | null }> {
  if (t.app.context.storage.driver === 'local') {
    const url = new URL(location);
    expect(url.origin).toBe('http://api.test');
    const response = await t.app.inject({ method: 'GET', url: url.pathname + url.search });
    return {
      status: response.statusCode,
      body: response.rawPayload,
      disposition: (response.headers['content-disposition'] as string | undefined) ?? null,
    };
  }
  const response = await fetch(location);
  return {
    status: response.status,
    body: Buffer.from(await response.arrayBuffer()),
    disposition: response.headers.get('content-disposition'),
  };
}

async function download(
  resourceId: string,
  versionId: string,
  options: { fileId?: string; ip?: string; headers?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  const path = `${versionUrl(resourceId, versionId)}/download${options.fileId !== undefined ? `/${options.fileId}` : ''}`;
  return t.app.inject({
    method: 'GET',
    url: path,
    headers: { 'user-agent': 'test-agent/1.0', ...(options.headers ?? {}) },
    remoteAddress: options.ip ?? '198.51.100.7',
  });
}

async function counts(resourceId: string, versionId: string) {
  const version = await readVersion(t.app, cast.owner, resourceId, versionId);
  const resource = (
    await t.app.inject({ method: 'GET', url: `/resources/${resourceId}` })
  ).json() as ResourceBody;
  return { version: version.downloads, resource: resource.downloads };
}

describe('one file', () => {
  it('302 to a signed URL valid one hour that serves the bytes as an attachment', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const png = await pngImage(20, 20);
    const version = await versionIn(t.app, actors(), resource.id, 'APPROVED', [
      { data: png, name: 'pack.png' },
    ]);
    const response = await download(resource.id, version.id, { fileId: version.files[0]!.id });
    expect(response.statusCode, response.body).toBe(302);
    const location = response.headers['location'] as string;
    if (t.app.context.storage.driver === 'local') {
      const url = new URL(location);
      const expires = Number(url.searchParams.get('expires'));
      expect(expires - Math.floor(t.clock.now().getTime() / 1000)).toBe(3600);
      expect(url.pathname).toMatch(new RegExp(`^/cdn/files/${resource.id}/${version.id}/`));
    } else {
      expect(location).toMatch(/X-Amz-Expires=3600/);
    }
    const fetched = await follow(location);
    expect(fetched.status).toBe(200);
    expect(fetched.body.equals(png)).toBe(true);
    expect(fetched.disposition).toMatch(/^attachment;.*pack\.png/);

    // …/download of a one-file version redirects to the same file.
    const whole = await download(resource.id, version.id);
    expect(whole.statusCode).toBe(302);
    expect((await follow(whole.headers['location'] as string)).body.equals(png)).toBe(true);
  });

  it('hands out the same link within a second and a fresh one after; both serve the file', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await versionIn(t.app, actors(), resource.id, 'APPROVED');
    const fileId = version.files[0]!.id;
    const link = async () =>
      (await download(resource.id, version.id, { fileId })).headers['location'] as string;
    const saved = t.clock.now();
    try {
      t.clock.set('2030-05-01T12:00:00.100Z');
      const first = await link();
      t.clock.set('2030-05-01T12:00:00.900Z');
      expect(await link()).toBe(first);
      t.clock.set('2030-05-01T12:00:01.000Z');
      const later = await link();
      if (t.app.context.storage.driver === 'local') {
        const expires = (location: string) => Number(new URL(location).searchParams.get('expires'));
        expect(expires(later) - expires(first)).toBe(1);
      }
      expect((await follow(first)).status).toBe(200);
      expect((await follow(later)).status).toBe(200);
    } finally {
      t.clock.set(saved);
    }
  });

  it('is refused to the public at once when the resource is suspended, and served again after', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await versionIn(t.app, actors(), resource.id, 'APPROVED');
    const fileId = version.files[0]!.id;
    expect((await download(resource.id, version.id, { fileId })).statusCode).toBe(302);
    await moderate(t.app, cast.moderator, resource.id, 'SUSPEND');
    expectError(await download(resource.id, version.id, { fileId }), 404);
    await moderate(t.app, cast.moderator, resource.id, 'UNSUSPEND');
    expect((await download(resource.id, version.id, { fileId })).statusCode).toBe(302);
  });

  it('a file of another version, or of another resource, is 404', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const other = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const a = await versionIn(t.app, actors(), resource.id, 'APPROVED');
    const b = await versionIn(t.app, actors(), resource.id, 'APPROVED');
    expectError(await download(resource.id, b.id, { fileId: a.files[0]!.id }), 404);
    expectError(await download(other.id, a.id, { fileId: a.files[0]!.id }), 404);
    expectError(await download(resource.id, a.id, { fileId: 'no-such-file' }), 404);
  });

  it('a version without files is 404 for …/download', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await versionIn(t.app, actors(), resource.id, 'DRAFT', []);
    expectError(await download(resource.id, version.id, { headers: cast.owner.headers }), 404);
  });
});

describe('the ZIP of a version', () => {
  it('streams every file under {slug}-{versionNumber}.zip; unpacked bytes equal the uploads', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const png = await pngImage(40, 30);
    const text = Buffer.from('line\n'.repeat(5000));
    const binary = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 31) % 256));
    const files = [
      { data: png, name: 'screenshot.png' },
      { data: text, name: 'notes.txt' },
      { data: binary, name: 'notes.txt' },
    ];
    const version = await versionIn(t.app, actors(), resource.id, 'APPROVED', files);
    const response = await download(resource.id, version.id);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('application/zip');
    expect(response.headers['content-disposition']).toContain(
      `attachment; filename="${resource.slug}-${version.versionNumber}.zip"`,
    );
    expect(response.headers['content-length']).toBeUndefined();
    const entries = unzip(response.rawPayload);
    expect([...entries.keys()]).toEqual(['screenshot.png', 'notes.txt', 'notes (2).txt']);
    expect(entries.get('screenshot.png')!.equals(png)).toBe(true);
    expect(entries.get('notes.txt')!.equals(text)).toBe(true);
    expect(entries.get('notes (2).txt')!.equals(binary)).toBe(true);
  });

  it('counts once per version per client and day, not per file', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const two = [
      { data: Buffer.from('1'), name: '1.txt' },
      { data: Buffer.from('2'), name: '2.txt' },
    ];
    const version = await versionIn(t.app, actors(), resource.id, 'APPROVED', two);
    expect((await download(resource.id, version.id)).statusCode).toBe(200);
    expect((await download(resource.id, version.id)).statusCode).toBe(200);
    expect(await counts(resource.id, version.id)).toEqual({ version: 1, resource: 1 });
    // A single-file download of the same version is another subject.
    expect((await download(resource.id, version.id, { fileId: version.files[0]!.id })).statusCode).toBe(302);
    expect(await counts(resource.id, version.id)).toEqual({ version: 2, resource: 2 });
    const events = await t.app.context.database.db
      .selectFrom('download_events')
      .select(['subject_type', 'subject_id'])
      .where('version_id', '=', version.id)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    expect(events).toEqual([
      { subject_type: 'VERSION', subject_id: version.id },
      { subject_type: 'FILE', subject_id: version.files[0]!.id },
    ]);
  });
});

describe('counting', () => {
  async function approvedVersion(): Promise<{
    resource: ResourceBody;
    version: VersionBody;
    fileId: string;
  }> {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await versionIn(t.app, actors(), resource.id, 'APPROVED');
    return { resource, version, fileId: version.files[0]!.id };
  }

  it('once per IP per UTC day; IPv6 per /64; IP, user agent and user recorded', async () => {
    const { resource, version, fileId } = await approvedVersion();
    const get = (ip: string, headers: Record<string, string> = {}) =>
      download(resource.id, version.id, { fileId, ip, headers });
    expect((await get('203.0.113.1', cast.stranger.headers)).statusCode).toBe(302);
    await get('203.0.113.1');
    await get('::ffff:203.0.113.1');
    expect(await counts(resource.id, version.id)).toEqual({ version: 1, resource: 1 });
    await get('203.0.113.2');
    await get('2001:db8:1:2::1');
    await get('2001:db8:1:2:ffff::9');
    await get('2001:db8:1:3::1');
    expect(await counts(resource.id, version.id)).toEqual({ version: 4, resource: 4 });
    const first = await t.app.context.database.db
      .selectFrom('download_events')
      .selectAll()
      .where('subject_id', '=', fileId)
      .where('client_key', '=', '203.0.113.1')
      .executeTakeFirstOrThrow();
    expect(first).toMatchObject({
      subject_type: 'FILE',
      version_id: version.id,
      ip: '203.0.113.1',
      user_agent: 'test-agent/1.0',
      user_id: cast.stranger.id,
    });
    const anonymous = await t.app.context.database.db
      .selectFrom('download_events')
      .select(['user_id', 'client_key'])
      .where('subject_id', '=', fileId)
      .where('ip', '=', '2001:db8:1:2::1')
      .executeTakeFirstOrThrow();
    expect(anonymous).toEqual({ user_id: null, client_key: '2001:db8:1:2::/64' });
  });

  it('counts again after the UTC day boundary, not before', async () => {
    const { resource, version, fileId } = await approvedVersion();
    const ip = '192.0.2.44';
    const saved = t.clock.now();
    try {
      t.clock.set('2030-03-10T23:59:58.000Z');
      await download(resource.id, version.id, { fileId, ip });
      t.clock.set('2030-03-10T23:59:59.999Z');
      await download(resource.id, version.id, { fileId, ip });
      expect(await counts(resource.id, version.id)).toEqual({ version: 1, resource: 1 });
      t.clock.set('2030-03-11T00:00:00.000Z');
      await download(resource.id, version.id, { fileId, ip });
      t.clock.set('2030-03-11T18:00:00.000Z');
      await download(resource.id, version.id, { fileId, ip });
      expect(await counts(resource.id, version.id)).toEqual({ version: 2, resource: 2 });
    } finally {
      t.clock.set(saved);
    }
  });

  it('concurrent duplicates count once', async () => {
    const { resource, version, fileId } = await approvedVersion();
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => download(resource.id, version.id, { fileId, ip: '192.0.2.99' })),
    );
    expect(responses.every((r) => r.statusCode === 302)).toBe(true);
    expect(await counts(resource.id, version.id)).toEqual({ version: 1, resource: 1 });
    const rows = await t.app.context.database.db
      .selectFrom('download_events')
      .select('id')
      .where('subject_id', '=', fileId)
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('the resource counter sums its versions', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const a = await versionIn(t.app, actors(), resource.id, 'APPROVED');
    const b = await versionIn(t.app, actors(), resource.id, 'APPROVED');
    await download(resource.id, a.id, { ip: '192.0.2.1' });
    await download(resource.id, b.id, { ip: '192.0.2.1' });
    await download(resource.id, b.id, { ip: '192.0.2.2' });
    expect(await counts(resource.id, a.id)).toEqual({ version: 1, resource: 3 });
    expect((await counts(resource.id, b.id)).version).toBe(2);
  });

  it.each(['DRAFT', 'PENDING', 'REJECTED', 'ARCHIVED'] as const)(
    'downloads of a %s version are served to those who may see it but never counted',
    async (status) => {
      const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
      const version = await versionIn(t.app, actors(), resource.id, status);
      for (const headers of [cast.owner.headers, cast.moderator.headers, cast.contributor.headers]) {
        const response = await download(resource.id, version.id, { fileId: version.files[0]!.id, headers });
        expect(response.statusCode).toBe(302);
      }
      const publicResponse = await download(resource.id, version.id, { fileId: version.files[0]!.id });
      expect(publicResponse.statusCode).toBe(status === 'ARCHIVED' ? 302 : 404);
      expect(await counts(resource.id, version.id)).toEqual({ version: 0, resource: 0 });
    },
  );

  it('an archived version keeps its count and stays downloadable', async () => {
    const { resource, version, fileId } = await approvedVersion();
    await download(resource.id, version.id, { fileId, ip: '192.0.2.5' });
    await act(t.app, cast.owner, resource.id, version.id, 'archive');
    expect((await download(resource.id, version.id, { fileId, ip: '192.0.2.6' })).statusCode).toBe(302);
    expect(await counts(resource.id, version.id)).toEqual({ version: 1, resource: 1 });
  });
});
