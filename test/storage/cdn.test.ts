import Fastify from 'fastify';
import type { FastifyError, FastifyInstance } from 'fastify';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { cdnRoutes, parseRange } from '../../src/core/storage/cdn.routes.js';
import { createLocalStorage } from '../../src/core/storage/local.js';
import type { Storage } from '../../src/core/storage/storage.js';
import { generatedStream, MIB } from './contract.js';

const secret = 'cdn-test-secret-0123456789-abcdefghijklmn';
const cdnUrl = 'http://localhost/cdn';
const image = Buffer.from('0123456789abcdefghij'); // 20 bytes
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The path and query of a signed URL, ready for app.inject. */
function pathOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

describe('/cdn route', () => {
  let rootDir: string;
  let storage: Storage;
  let app: FastifyInstance;
  const clock = new ManualClock('2026-01-15T12:00:00.000Z');

  beforeAll(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'storage-cdn-'));
    storage = createLocalStorage({ rootDir, cdnUrl, secret, clock });
    await storage.put('images/u/1/abc.png', image, { contentType: 'image/png', immutable: true });
    await storage.put('files/v1/f1', Buffer.from('PK zip payload'), { contentType: 'application/zip' });
    app = Fastify();
    app.setErrorHandler((e: FastifyError, _r, reply) =>
      reply.status(e.statusCode ?? 500).send({ statusCode: e.statusCode, code: e.code, message: e.message }),
    );
    await app.register(cdnRoutes, { prefix: '/cdn', storage, secret, clock });
    await app.ready();
  });

  afterAll(async () => {
    await app?.close();
    await rm(rootDir, { recursive: true, force: true });
  });

  it('serves a public image with immutable caching and nosniff', async () => {
    const response = await app.inject({ method: 'GET', url: '/cdn/images/u/1/abc.png' });
    expect(response.statusCode).toBe(200);
    expect(response.rawPayload.equals(image)).toBe(true);
    expect(response.headers['content-type']).toBe('image/png');
    expect(response.headers['content-length']).toBe('20');
    expect(response.headers['cache-control']).toBe(IMMUTABLE);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['accept-ranges']).toBe('bytes');
    expect(response.headers['content-disposition']).toBeUndefined();
  });

  it('answers HEAD with the headers and no body', async () => {
    const response = await app.inject({ method: 'HEAD', url: '/cdn/images/u/1/abc.png' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('');
    expect(response.headers['content-length']).toBe('20');
    expect(response.headers['content-type']).toBe('image/png');
    expect(response.headers['cache-control']).toBe(IMMUTABLE);
    const missing = await app.inject({ method: 'HEAD', url: '/cdn/images/u/1/nope.png' });
    expect(missing.statusCode).toBe(404);
  });

  it('serves single byte ranges with 206', async () => {
    const cases: [string, string, string][] = [
      ['bytes=2-5', '2345', 'bytes 2-5/20'],
      ['bytes=15-', 'fghij', 'bytes 15-19/20'],
      ['bytes=-3', 'hij', 'bytes 17-19/20'],
      ['bytes=18-1000', 'ij', 'bytes 18-19/20'],
      ['bytes=-50', image.toString(), 'bytes 0-19/20'],
    ];
    for (const [range, body, contentRange] of cases) {
      const response = await app.inject({ url: '/cdn/images/u/1/abc.png', headers: { range } });
      expect(response.statusCode, range).toBe(206);
      expect(response.body, range).toBe(body);
      expect(response.headers['content-range'], range).toBe(contentRange);
      expect(response.headers['content-length'], range).toBe(String(body.length));
      expect(response.headers['cache-control'], range).toBe(IMMUTABLE);
    }
    const head = await app.inject({
      method: 'HEAD',
      url: '/cdn/images/u/1/abc.png',
      headers: { range: 'bytes=0-9' },
    });
    expect(head.statusCode).toBe(206);
    expect(head.headers['content-length']).toBe('10');
    expect(head.headers['content-range']).toBe('bytes 0-9/20');
  });

  it('answers unsatisfiable ranges with 416', async () => {
    for (const range of ['bytes=20-', 'bytes=100-200', 'bytes=-0']) {
      const response = await app.inject({ url: '/cdn/images/u/1/abc.png', headers: { range } });
      expect(response.statusCode, range).toBe(416);
      expect(response.headers['content-range'], range).toBe('bytes */20');
    }
  });

  it('ignores multi-range and malformed Range headers', async () => {
    for (const range of ['bytes=0-1,4-5', 'bytes=5-2', 'items=0-1', 'bytes=-', 'bytes=a-b', 'bytes 0-1']) {
      const response = await app.inject({ url: '/cdn/images/u/1/abc.png', headers: { range } });
      expect(response.statusCode, range).toBe(200);
      expect(response.rawPayload.equals(image), range).toBe(true);
      expect(response.headers['content-range'], range).toBeUndefined();
    }
  });

  it('serves a signed file as a private attachment', async () => {
    const url = await storage.signedUrl('files/v1/f1', { expiresIn: 600, downloadName: 'Déjà Vu Map.zip' });
    const response = await app.inject({ url: pathOf(url) });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('PK zip payload');
    expect(response.headers['content-type']).toBe('application/zip');
    expect(response.headers['content-disposition']).toBe(
      `attachment; filename="D_j_ Vu Map.zip"; filename*=UTF-8''D%C3%A9j%C3%A0%20Vu%20Map.zip`,
    );
    expect(response.headers['cache-control']).toBe('private, max-age=600');
    expect(response.headers['x-content-type-options']).toBe('nosniff');

    const ranged = await app.inject({ url: pathOf(url), headers: { range: 'bytes=0-1' } });
    expect(ranged.statusCode).toBe(206);
    expect(ranged.body).toBe('PK');
    const head = await app.inject({ method: 'HEAD', url: pathOf(url) });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe('14');
  });

  it('rejects missing or tampered signatures with 403', async () => {
    const url = new URL(await storage.signedUrl('files/v1/f1', { expiresIn: 600, downloadName: 'a.zip' }));
    const tamper = (name: string, value: string | null) => {
      const copy = new URL(url);
      if (value === null) copy.searchParams.delete(name);
      else copy.searchParams.set(name, value);
      return `${copy.pathname}${copy.search}`;
    };
    const attempts = [
      '/cdn/files/v1/f1',
      tamper('signature', null),
      tamper('expires', null),
      tamper('name', null),
      tamper('signature', '0'.repeat(64)),
      tamper('signature', 'not-hex'),
      tamper('name', 'b.zip'),
      tamper('expires', String(Number(url.searchParams.get('expires')) + 60)),
    ];
    for (const attempt of attempts) {
      const response = await app.inject({ url: attempt });
      expect(response.statusCode, attempt).toBe(403);
      expect(response.json(), attempt).toMatchObject({ code: 'INVALID_SIGNATURE' });
      expect(response.headers['content-disposition'], attempt).toBeUndefined();
    }
    // A valid signature for one file does not open another.
    await storage.put('files/v1/f2', Buffer.from('other'), { contentType: 'application/zip' });
    const other = await app.inject({ url: `/cdn/files/v1/f2${url.search}` });
    expect(other.statusCode).toBe(403);
  });

  it('rejects an expired link with 403', async () => {
    const url = await storage.signedUrl('files/v1/f1', { expiresIn: 60, downloadName: 'a.zip' });
    expect((await app.inject({ url: pathOf(url) })).statusCode).toBe(200);
    clock.advance(59_000);
    const nearlyExpired = await app.inject({ url: pathOf(url) });
    expect(nearlyExpired.statusCode).toBe(200);
    expect(nearlyExpired.headers['cache-control']).toBe('private, max-age=1');
    clock.advance(1_000);
    const expired = await app.inject({ url: pathOf(url) });
    expect(expired.statusCode).toBe(403);
    expect(expired.json()).toMatchObject({ code: 'INVALID_SIGNATURE' });
  });

  it('answers 404 for missing objects', async () => {
    const response = await app.inject({ url: '/cdn/images/u/1/missing.png' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'NOT_FOUND' });
    // A correctly signed link to a file that is gone is a 404, not a 403.
    const url = await storage.signedUrl('files/v1/gone', { expiresIn: 600, downloadName: 'gone.zip' });
    expect((await app.inject({ url: pathOf(url) })).statusCode).toBe(404);
  });

  it('answers 404 for path traversal and invalid keys', async () => {
    for (const url of [
      '/cdn/images/..%2F..%2F..%2Fetc%2Fpasswd',
      '/cdn/..%2Fobjects%2Fimages%2Fu%2F1%2Fabc.png',
      '/cdn/images%2F..%2F..%2Fmeta%2Fimages%2Fu%2F1%2Fabc.png',
      '/cdn/%2Fetc%2Fpasswd',
      '/cdn/images//u/1/abc.png',
      '/cdn/images%5Cu%5C1%5Cabc.png',
      '/cdn/',
    ]) {
      const response = await app.inject({ url });
      expect(response.statusCode, url).toBe(404);
    }
  });

  it('streams a large file without buffering it in the route', async () => {
    const source = generatedStream(8 * MIB);
    await storage.put('images/big.bin', source.stream, { contentType: 'application/octet-stream' });
    const response = await app.inject({ url: '/cdn/images/big.bin' });
    expect(response.statusCode).toBe(200);
    expect(response.rawPayload.length).toBe(8 * MIB);
    expect(response.headers['content-length']).toBe(String(8 * MIB));
  });
});

describe('parseRange', () => {
  it('resolves single ranges and rejects the rest', () => {
    expect(parseRange(undefined, 10)).toBeUndefined();
    expect(parseRange('bytes=0-0', 10)).toEqual({ start: 0, end: 0 });
    expect(parseRange('bytes=9-', 10)).toEqual({ start: 9, end: 9 });
    expect(parseRange('bytes=-10', 10)).toEqual({ start: 0, end: 9 });
    expect(parseRange('BYTES=1-2', 10)).toEqual({ start: 1, end: 2 });
    expect(parseRange('bytes=0-', 0)).toBe('unsatisfiable');
    expect(parseRange('bytes=-5', 0)).toBe('unsatisfiable');
    expect(parseRange('bytes=99999999999999999999-', 10)).toBeUndefined();
    expect(parseRange('bytes=1-2, 3-4', 10)).toBeUndefined();
  });
});
