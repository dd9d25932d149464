// requestId in every error body (same as the x-request-id header), framework errors included, and 405 with
// Allow for a known path under a method it does not have; unknown paths, HEAD and CORS preflights unchanged.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { createUser } from '../../helpers/factories.js';
import type { TestUser } from '../../helpers/factories.js';
import { loadOpenApi } from '../../helpers/openapi.js';

function expectRequestId(response: LightMyRequestResponse, status: number, code: string): void {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json() as Record<string, unknown>;
  expect(body['code']).toBe(code);
  expect(body['requestId']).toBeTypeOf('string');
  expect(body['requestId']).toBe(response.headers['x-request-id']);
}

describe('requestId in error bodies', () => {
  let t: TestApp;
  let user: TestUser;
  beforeAll(async () => {
    t = await buildTestApp({ RATE_LIMIT: 'on', RATE_LIMIT_ANONYMOUS: '2' });
    user = await createUser(t.app);
  });
  afterAll(async () => t.close());

  it('is in the one error shape of the document, required', async () => {
    const document = (await loadOpenApi(t.app)) as unknown as {
      components: { schemas: Record<string, { required?: string[]; properties: Record<string, unknown> }> };
    };
    const shape = document.components.schemas['Error']!;
    expect(shape.properties['requestId']).toBeDefined();
    expect(shape.required).toContain('requestId');
  });

  it('is on 404, 405, validation 400, malformed JSON 400, 401 and 403', async () => {
    // Each anonymous request from its own address: the anonymous budget here is 2 a minute.
    expectRequestId(
      await t.app.inject({ method: 'GET', url: '/no/such/thing', remoteAddress: '192.0.2.1' }),
      404,
      'NOT_FOUND',
    );
    expectRequestId(
      await t.app.inject({ method: 'PUT', url: '/health', remoteAddress: '192.0.2.2' }),
      405,
      'METHOD_NOT_ALLOWED',
    );
    expectRequestId(
      await t.app.inject({ method: 'GET', url: '/admin/users?limit=abc', headers: user.headers }),
      400,
      'INVALID_REQUEST',
    );
    expectRequestId(
      await t.app.inject({
        method: 'POST',
        url: '/resources',
        headers: { ...user.headers, 'content-type': 'application/json' },
        payload: '{"name": ',
      }),
      400,
      'INVALID_REQUEST',
    );
    expectRequestId(
      await t.app.inject({
        method: 'GET',
        url: '/users/me',
        headers: { 'x-api-key': 'mk_nope' },
        remoteAddress: '192.0.2.3',
      }),
      401,
      'UNAUTHORIZED',
    );
    expectRequestId(
      await t.app.inject({ method: 'GET', url: '/admin/users', headers: user.headers }),
      403,
      'FORBIDDEN',
    );
  });

  it('is on 413, 415 and 414 (answered before routing)', async () => {
    expectRequestId(
      await t.app.inject({
        method: 'POST',
        url: '/auth/login',
        remoteAddress: '192.0.2.4',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ login: 'x'.repeat(1024 * 1024 + 16), password: 'p' }),
      }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    expectRequestId(
      await t.app.inject({
        method: 'POST',
        url: '/resources',
        headers: { ...user.headers, 'content-type': 'text/csv' },
        payload: 'a,b',
      }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expectRequestId(
      await t.app.inject({ method: 'GET', url: `/users/${'a'.repeat(200)}` }),
      414,
      'URI_TOO_LONG',
    );
  });

  it('is on 429, and echoes a client-sent x-request-id', async () => {
    const ask = () =>
      t.app.inject({
        method: 'GET',
        url: '/resources',
        remoteAddress: '192.0.2.77',
        headers: { 'x-request-id': 'client-trace-1' },
      });
    await ask();
    await ask();
    const limited = await ask();
    expectRequestId(limited, 429, 'RATE_LIMITED');
    expect((limited.json() as { requestId: string }).requestId).toBe('client-trace-1');
  });
});

describe('405 Method Not Allowed', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ CORS_ORIGINS: 'https://front.example' });
  });
  afterAll(async () => t.close());

  it('answers a known path under another method with 405 and Allow', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: '/resources' });
    expectRequestId(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers['allow']).toBe('POST, GET, HEAD');
    const withParams = await t.app.inject({ method: 'PUT', url: '/resources/some-id/likes' });
    expect(withParams.statusCode).toBe(405);
    expect(withParams.headers['allow']).toContain('POST');
    // A wildcard route (/cdn/*) is a known path too.
    const cdn = await t.app.inject({ method: 'POST', url: '/cdn/avatars/a.png' });
    expect(cdn.statusCode).toBe(405);
    expect(cdn.headers['allow']).toBe('GET, HEAD');
  });

  it('keeps 404 for unknown paths, whatever the method', async () => {
    expectRequestId(await t.app.inject({ method: 'DELETE', url: '/no/such/path' }), 404, 'NOT_FOUND');
    expectRequestId(await t.app.inject({ method: 'GET', url: '/resources/x/y/z/w' }), 404, 'NOT_FOUND');
  });

  it('serves HEAD wherever GET is served, and leaves CORS preflights to CORS', async () => {
    expect((await t.app.inject({ method: 'HEAD', url: '/resources' })).statusCode).toBe(200);
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/resources',
      headers: { origin: 'https://front.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://front.example');
  });
});
