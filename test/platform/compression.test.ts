// Response compression (issue 11): JSON bodies of 1 KB or more are br/gzip-encoded when the client asks, with
// `Vary: Accept-Encoding`; ETags and If-None-Match are unchanged; stored objects (file downloads with Range,
// images) are never encoded; small bodies and clients that do not ask get identity.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createResourceCast, resourceFor } from '../resources/helpers.js';
import type { ResourceCast } from '../resources/helpers.js';
import { versionIn, versionUrl } from '../versions/helpers.js';
import { preferredEncoding } from '../../src/core/http/kept-encodings.js';

let t: TestApp;
let cast: ResourceCast;
let resourceId: string;

beforeAll(async () => {
  t = await buildTestApp();
  cast = await createResourceCast(t.app);
  const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
  resourceId = resource.id;
  // A description long enough that the resource alone is well over 1 KB.
  const description = 'A resource that does many things. '.repeat(80);
  const patched = await t.app.inject({
    method: 'PATCH',
    url: `/resources/${resourceId}`,
    headers: cast.owner.headers,
    payload: { description },
  });
  expect(patched.statusCode, patched.body).toBe(200);
  // A public list page of several resources.
  for (let i = 0; i < 3; i++) await resourceFor(t.app, cast, 'USER', 'APPROVED');
});
afterAll(async () => t.close());

const get = (url: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers });

const decode: Record<string, (data: Buffer) => Buffer> = { gzip: gunzipSync, br: brotliDecompressSync };

// The API's own JSON (kept answers included: an anonymous resource read, the public list), /openapi.json and a feed.
const LARGE_JSON = [
  ['a resource read (kept answer)', () => `/resources/${resourceId}`],
  ['the public resource list (kept page)', () => '/resources'],
  ['the OpenAPI document', () => '/openapi.json'],
  ['the Atom feed of new resources', () => '/resources/feed.atom'],
] as const;

describe('JSON of 1 KB or more', () => {
  it.each(
    LARGE_JSON.flatMap(([what, url]) =>
      (['gzip', 'br'] as const).map((encoding) => ({ what, url, encoding })),
    ),
  )('$what in $encoding round-trips to the identity body', async ({ url, encoding }) => {
    const identity = await get(url());
    expect(identity.statusCode).toBe(200);
    expect(identity.rawPayload.length).toBeGreaterThanOrEqual(1024);
    expect(identity.headers['content-encoding']).toBeUndefined();

    const encoded = await get(url(), { 'accept-encoding': encoding });
    expect(encoded.statusCode).toBe(200);
    expect(encoded.headers['content-encoding']).toBe(encoding);
    expect(String(encoded.headers['vary'])).toMatch(/accept-encoding/i);
    expect(encoded.headers['content-type']).toBe(identity.headers['content-type']);
    expect(encoded.rawPayload.length).toBeLessThan(identity.rawPayload.length);
    expect(decode[encoding]!(encoded.rawPayload).equals(identity.rawPayload)).toBe(true);
  });

  it('prefers br when the client accepts both, and honours q-values', async () => {
    const url = `/resources/${resourceId}`;
    expect((await get(url, { 'accept-encoding': 'gzip, deflate, br' })).headers['content-encoding']).toBe(
      'br',
    );
    expect((await get(url, { 'accept-encoding': 'br;q=0.1, gzip' })).headers['content-encoding']).toBe(
      'gzip',
    );
    expect((await get(url, { 'accept-encoding': 'deflate' })).headers['content-encoding']).toBeUndefined();
  });

  it.each(LARGE_JSON)(
    '%s: keeps the same weak ETag, and If-None-Match answers 304 in any encoding',
    async (_what, url) => {
      const identity = await get(url());
      const etag = identity.headers['etag'] as string;
      expect(etag).toMatch(/^W\//);
      for (const encoding of ['gzip', 'br']) {
        const encoded = await get(url(), { 'accept-encoding': encoding });
        expect(encoded.headers['etag']).toBe(etag);
        const revalidated = await get(url(), { 'accept-encoding': encoding, 'if-none-match': etag });
        expect(revalidated.statusCode).toBe(304);
        expect(revalidated.rawPayload.length).toBe(0);
      }
    },
  );
});

describe('kept answers', () => {
  it.each([
    ['a resource read', () => `/resources/${resourceId}`],
    ['the public resource list', () => '/resources'],
  ])('%s is encoded once and then sent as kept bytes, with a Content-Length', async (_what, url) => {
    for (const encoding of ['br', 'gzip']) {
      const first = await get(url(), { 'accept-encoding': encoding });
      const second = await get(url(), { 'accept-encoding': encoding });
      for (const response of [first, second]) {
        expect(response.headers['content-encoding']).toBe(encoding);
        // The stream path of the compress plugin sends chunked, without a length; kept bytes carry theirs.
        expect(Number(response.headers['content-length'])).toBe(response.rawPayload.length);
      }
      expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
    }
  });

  it('are not encoded when COMPRESSION=off', async () => {
    const plain = await buildTestApp({ COMPRESSION: 'off' });
    try {
      const response = await plain.app.inject({
        method: 'GET',
        url: '/openapi.json',
        headers: { 'accept-encoding': 'br, gzip' },
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-encoding']).toBeUndefined();
    } finally {
      await plain.close();
    }
  });

  it.each([
    ['gzip, deflate, br', 'br'],
    ['br;q=0.5, gzip;q=0.8', 'gzip'],
    ['x-gzip', 'gzip'],
    ['*', 'br'],
    ['*;q=0.5, br;q=0', 'gzip'],
    ['br;q=0, gzip;q=0', undefined],
    ['identity', undefined],
    ['deflate', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('Accept-Encoding %j chooses %s', (header, expected) => {
    expect(preferredEncoding(header)).toBe(expected);
  });
});

describe('left as identity', () => {
  it('a body under 1 KB', async () => {
    const response = await get('/health', { 'accept-encoding': 'gzip, br' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('a client that sends no Accept-Encoding, or asks for identity', async () => {
    for (const headers of [{}, { 'accept-encoding': 'identity' }] as Array<Record<string, string>>) {
      const response = await get('/openapi.json', headers);
      expect(response.headers['content-encoding']).toBeUndefined();
      expect(() => response.json()).not.toThrow();
    }
  });

  it('a file download with Range: 206 with the stored bytes, never encoded', async () => {
    const content = Buffer.from('line of a compressible text file\n'.repeat(200));
    const version = await versionIn(
      t.app,
      { editor: cast.owner, moderator: cast.moderator },
      resourceId,
      'APPROVED',
      [{ data: content, name: 'notes.txt' }],
    );
    const redirect = await get(`${versionUrl(resourceId, version.id)}/download/${version.files[0]!.id}`);
    expect(redirect.statusCode).toBe(302);
    const location = new URL(redirect.headers['location'] as string);
    const headers = { 'accept-encoding': 'gzip, br', range: 'bytes=100-1599' };
    if (t.app.context.storage.driver === 'local') {
      const ranged = await get(location.pathname + location.search, headers);
      expect(ranged.statusCode).toBe(206);
      expect(ranged.headers['content-encoding']).toBeUndefined();
      expect(ranged.headers['content-range']).toBe(`bytes 100-1599/${content.length}`);
      expect(ranged.rawPayload.equals(content.subarray(100, 1600))).toBe(true);
      const whole = await get(location.pathname + location.search, { 'accept-encoding': 'gzip, br' });
      expect(whole.statusCode).toBe(200);
      expect(whole.headers['content-encoding']).toBeUndefined();
      expect(whole.rawPayload.equals(content)).toBe(true);
    } else {
      // On S3 the signed link is the bucket's: the API never touches the bytes.
      expect(location.origin).not.toBe('http://api.test');
      const ranged = await fetch(location, { headers });
      expect(ranged.status).toBe(206);
      expect(Buffer.from(await ranged.arrayBuffer()).equals(content.subarray(100, 1600))).toBe(true);
    }
  });

  it('an image under /cdn, even one over 1 KB', async () => {
    const resource = (await get(`/resources/${resourceId}`)).json() as { owner: { avatarUrl?: string } };
    const avatar = resource.owner.avatarUrl ?? `${t.config.cdnUrl}/defaults/avatar-v1.png`;
    const key = avatar.slice(avatar.indexOf('/cdn/') + '/cdn'.length);
    const response = await get(`/cdn${key}`, { 'accept-encoding': 'gzip, br' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^image\//);
    expect(response.rawPayload.length).toBeGreaterThan(1024);
    expect(response.headers['content-encoding']).toBeUndefined();
  });
});
