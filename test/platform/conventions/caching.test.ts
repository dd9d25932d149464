// Cache-Control and Vary: public answers short and revalidated with their ETag, personal answers never stored by
// a shared cache, routes' own choices kept (immutable CDN objects without Vary on credentials). And User-Agent:
// requested in the documentation, never required.
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_AVATAR_KEY } from '../../../src/core/default-assets.js';
import { PERSONAL_ANSWER, PUBLIC_ANSWER } from '../../../src/core/http/conventions/cache-control.js';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { createUser } from '../../helpers/factories.js';
import type { TestUser } from '../../helpers/factories.js';

let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  user = await createUser(t.app);
});
afterAll(async () => t.close());

const varyOf = (value: unknown) =>
  String(value ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase());

describe('Cache-Control and Vary', () => {
  it('a public GET is short-lived and revalidated with its ETag (304 keeps the same policy)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/resources' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe(PUBLIC_ANSWER);
    expect(res.headers['etag']).toMatch(/^W\//);
    expect(varyOf(res.headers['vary'])).toEqual(expect.arrayContaining(['authorization', 'x-api-key']));
    const again = await t.app.inject({
      method: 'GET',
      url: '/resources',
      headers: { 'if-none-match': res.headers['etag'] as string },
    });
    expect(again.statusCode).toBe(304);
    expect(again.headers['cache-control']).toBe(PUBLIC_ANSWER);
  });

  it('any answer to a request with credentials is private, no-store — also of a public URL', async () => {
    for (const url of ['/users/me', '/resources']) {
      const res = await t.app.inject({ method: 'GET', url, headers: user.headers });
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control'], url).toBe(PERSONAL_ANSWER);
    }
    const bearer = await t.app.inject({
      method: 'GET',
      url: '/resources',
      headers: { authorization: 'Bearer x' },
    });
    expect(bearer.statusCode).toBe(401);
    expect(bearer.headers['cache-control']).toBe('no-store');
  });

  it('writes and errors are no-store', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/resources',
      headers: user.headers,
      payload: { name: 'Cached', slug: 'cached-one', type: 'PLUGIN', shortDescription: 'x' },
    });
    expect(created.statusCode).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const missing = await t.app.inject({ method: 'GET', url: '/resources/no-such-resource' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['cache-control']).toBe('no-store');
  });

  it("keeps a route's own choice (the same document for every caller), with Vary on credentials", async () => {
    for (const headers of [{}, user.headers]) {
      const res = await t.app.inject({ method: 'GET', url: '/moderation/stats', headers });
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=60');
      expect(varyOf(res.headers['vary'])).toEqual(expect.arrayContaining(['authorization', 'x-api-key']));
    }
  });

  it('keeps immutable CDN objects immutable, without Vary on credentials, for every caller', async () => {
    for (const headers of [{}, user.headers]) {
      const res = await t.app.inject({ method: 'GET', url: `/cdn/${DEFAULT_AVATAR_KEY}`, headers });
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toContain('immutable');
      expect(varyOf(res.headers['vary'])).not.toContain('x-api-key');
    }
  });

  it('merges Vary with Accept-Encoding when the answer is compressed', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/openapi.json',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(res.statusCode).toBe(200);
    expect(varyOf(res.headers['vary'])).toEqual(
      expect.arrayContaining(['accept-encoding', 'authorization', 'x-api-key']),
    );
  });
});

describe('User-Agent', () => {
  it('is never required: a request without one succeeds', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const answer = await new Promise<{ status: number; sentUserAgent: boolean }>((resolve, reject) => {
      const request = httpRequest(
        { host: '127.0.0.1', port, path: '/resources', method: 'GET' },
        (response) => {
          response.resume();
          response.on('end', () => resolve({ status: response.statusCode ?? 0, sentUserAgent }));
        },
      );
      // Node sends no User-Agent unless told to; make sure of it.
      request.removeHeader('user-agent');
      const sentUserAgent = request.getHeader('user-agent') !== undefined;
      request.on('error', reject);
      request.end();
    });
    expect(answer).toEqual({ status: 200, sentUserAgent: false });
  });
});
