// HTTP conventions every route shares (DESIGN §6, §11): health and readiness, request ids, ETags, security
// headers, CORS, rate limits, and the OpenAPI document covering every route.
import type * as FastifyModule from 'fastify';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';

// Every route registered on any app built in this file, collected by an onRoute hook added to each Fastify
// instance the moment it is created (before buildApp registers anything). The apps are otherwise untouched.
const registered = vi.hoisted(() => [] as Array<{ method: string; url: string }>);
vi.mock('fastify', async (importOriginal) => {
  const actual = await importOriginal<typeof FastifyModule>();
  const factory = actual.default as unknown as (options?: unknown) => FastifyInstance;
  const withRouteLog = (options?: unknown) => {
    const instance = factory(options);
    instance.addHook('onRoute', (route: RouteOptions) => {
      for (const method of [route.method].flat()) registered.push({ method, url: route.url });
    });
    return instance;
  };
  return { ...actual, default: withRouteLog };
});

interface Operation {
  operationId?: string;
  tags?: string[];
  summary?: string;
  security?: unknown[];
  responses?: Record<string, unknown>;
}
interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  tags?: Array<{ name: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** `/users/{userId}` → `/users/:userId`; the wildcard `{*}` → `*`. */
const toFastifyPath = (path: string) => path.replace(/\{\*\}/g, '*').replace(/\{([^}]+)\}/g, ':$1');
/**
 * A route or document path without its parameter names: the document names a wildcard `{path}` and a path twin's
 * parameter after the interface's form (src/core/http/openapi-paths.ts), so names are not compared.
 */
const routeShape = (path: string) => toFastifyPath(path).replace(/:[^/]+|\*$/g, ':');

/** Every (method, path) the service must expose: the interface's user routes and DESIGN §7. */
const KNOWN_ROUTES: Array<[string, string]> = [
  ['get', '/health'],
  ['get', '/ready'],
  ['get', '/openapi.json'],
  ['post', '/auth/register'],
  ['post', '/auth/login'],
  ['post', '/auth/logout'],
  ['get', '/users/me/api-keys'],
  ['post', '/users/me/api-keys'],
  ['delete', '/users/me/api-keys/{keyId}'],
  ['get', '/admin/users'],
  ['patch', '/admin/users/{userId}'],
  ['get', '/users/me'],
  ['patch', '/users/me'],
  ['post', '/users/me/image'],
  ['delete', '/users/me/image'],
  ['post', '/users/me/banner'],
  ['delete', '/users/me/banner'],
  ['get', '/users/username/{username}'],
  ['get', '/users/{userId}'],
  ['get', '/users/search'],
  ['post', '/users/{userId}/follow'],
  ['delete', '/users/{userId}/follow'],
  ['get', '/users/{userId}/followers'],
  ['get', '/users/{userId}/following'],
  ['get', '/users/me/social-links'],
  ['post', '/users/me/social-links'],
  ['patch', '/users/me/social-links/{linkId}'],
  ['delete', '/users/me/social-links/{linkId}'],
  ['patch', '/users/me/social-links/reorder'],
];

describe('HTTP conventions', () => {
  let t: TestApp;
  let user: TestUser;

  beforeAll(async () => {
    t = await buildTestApp();
    user = await createUser(t.app);
  });
  afterAll(async () => t.close());

  describe('health and readiness', () => {
    it('GET /health answers 200 {status: ok}', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/health' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ok' });
    });

    it('GET /ready answers 200 with every check ok', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/ready' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        status: 'ok',
        checks: { database: 'ok', migrations: 'ok', storage: 'ok' },
      });
    });
  });

  describe('request ids', () => {
    it('puts a generated x-request-id on every response, a new one per request', async () => {
      const first = await t.app.inject({ method: 'GET', url: '/health' });
      const second = await t.app.inject({ method: 'GET', url: '/no-such-route' });
      const firstId = first.headers['x-request-id'];
      const secondId = second.headers['x-request-id'];
      // A per-process random prefix and a counter: unique across processes without a UUID per request.
      expect(firstId).toMatch(/^[\w-]{8}-[0-9a-z]+$/);
      expect(secondId).toMatch(/^[\w-]{8}-[0-9a-z]+$/);
      expect(firstId).not.toBe(secondId);
      expect(String(firstId).slice(0, 8)).toBe(String(secondId).slice(0, 8));
    });

    it('echoes an x-request-id the client sent, also on errors', async () => {
      const ok = await t.app.inject({
        method: 'GET',
        url: '/health',
        headers: { 'x-request-id': 'trace-abc-123' },
      });
      expect(ok.headers['x-request-id']).toBe('trace-abc-123');
      const failed = await t.app.inject({
        method: 'GET',
        url: '/users/me',
        headers: { 'x-request-id': 'trace-401' },
      });
      expectError(failed, 401);
      expect(failed.headers['x-request-id']).toBe('trace-401');
    });
  });

  describe('ETags', () => {
    it.each([
      ['a public GET', '/health', false],
      ['an authenticated GET', '/users/me', true],
    ])(
      '%s carries a weak ETag and answers If-None-Match with 304 and no body',
      async (_label, url, authed) => {
        const headers = authed ? user.headers : {};
        const first = await t.app.inject({ method: 'GET', url, headers });
        expect(first.statusCode).toBe(200);
        const etag = first.headers['etag'];
        expect(typeof etag).toBe('string');
        expect(etag).toMatch(/^W\//);

        const cached = await t.app.inject({
          method: 'GET',
          url,
          headers: { ...headers, 'if-none-match': String(etag) },
        });
        expect(cached.statusCode).toBe(304);
        expect(cached.body).toBe('');

        const stale = await t.app.inject({
          method: 'GET',
          url,
          headers: { ...headers, 'if-none-match': 'W/"other"' },
        });
        expect(stale.statusCode).toBe(200);
        expect(stale.body).toBe(first.body);
      },
    );

    it('changes the ETag when the representation changes', async () => {
      const someone = await createUser(t.app);
      const before = await t.app.inject({ method: 'GET', url: '/users/me', headers: someone.headers });
      await t.app.inject({
        method: 'PATCH',
        url: '/users/me',
        headers: someone.headers,
        payload: { bio: 'changed' },
      });
      const after = await t.app.inject({
        method: 'GET',
        url: '/users/me',
        headers: { ...someone.headers, 'if-none-match': String(before.headers['etag']) },
      });
      expect(after.statusCode).toBe(200);
      expect(after.headers['etag']).not.toBe(before.headers['etag']);
    });
  });

  describe('security headers', () => {
    it.each([
      ['a success', '/health'],
      ['an error', '/no-such-route'],
    ])('are set on %s', async (_label, url) => {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
      expect(res.headers['cross-origin-opener-policy']).toBe('same-origin');
      expect(res.headers['x-powered-by']).toBeUndefined();
    });
  });

  describe('CORS', () => {
    it('is off by default: no access-control-allow-origin for a cross-origin request', async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: '/health',
        headers: { origin: 'https://app.example' },
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    });
  });

  describe('OpenAPI document', () => {
    let doc: OpenApiDocument;
    beforeAll(async () => {
      const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      doc = res.json() as OpenApiDocument;
    });

    const operations = () =>
      Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([method]) => HTTP_METHODS.includes(method))
          .map(([method, operation]) => ({ path, method, operation })),
      );

    it('is OpenAPI 3.1 with paths and the named shapes as components', () => {
      expect(doc.openapi).toMatch(/^3\.1\./);
      expect(doc.info.title).toEqual(expect.any(String));
      expect(doc.info.version).toEqual(expect.any(String));
      expect(Object.keys(doc.paths).length).toBeGreaterThan(0);
      for (const name of ['Error', 'PrivateProfile', 'PublicProfile', 'SocialLink', 'PageMeta']) {
        expect(doc.components.schemas).toHaveProperty(name);
      }
      expect(doc.components.securitySchemes).toHaveProperty('apiKey');
      expect(doc.components.securitySchemes).toHaveProperty('bearerAuth');
    });

    it('matches the app-generated document', () => {
      expect(doc).toEqual(JSON.parse(JSON.stringify(t.app.swagger())));
    });

    it.each(KNOWN_ROUTES)('documents %s %s', (method, path) => {
      expect(doc.paths[path], `${path} missing`).toBeDefined();
      expect(doc.paths[path]![method], `${method} ${path} missing`).toBeDefined();
    });

    it('documents only routes that exist', () => {
      const routes = new Set(registered.map(({ method, url }) => `${method} ${routeShape(url)}`));
      for (const { path, method } of operations()) {
        expect(routes.has(`${method.toUpperCase()} ${routeShape(path)}`), `${method} ${path}`).toBe(true);
      }
    });

    it('documents every registered route (HEAD, OPTIONS and /docs excepted)', () => {
      const documented = new Set(
        operations().map(({ method, path }) => `${method.toUpperCase()} ${routeShape(path)}`),
      );
      const routes = registered
        .filter(({ method }) => method !== 'HEAD' && method !== 'OPTIONS')
        .filter(({ url }) => url !== '/docs' && !url.startsWith('/docs/'))
        .map(({ method, url }) => `${method} ${routeShape(url)}`);
      expect(routes.length).toBeGreaterThanOrEqual(KNOWN_ROUTES.length);
      const undocumented = [...new Set(routes)].filter((route) => !documented.has(route));
      expect(undocumented).toEqual([]);
    });

    it('gives every operation a unique operationId, non-empty tags and a summary', () => {
      const ids = new Map<string, string>();
      const declaredTags = new Set((doc.tags ?? []).map((tag) => tag.name));
      for (const { path, method, operation } of operations()) {
        const where = `${method} ${path}`;
        expect(operation.operationId, where).toMatch(/^[a-z][A-Za-z0-9]*$/);
        expect(ids.get(operation.operationId!), `${where} reuses an operationId`).toBeUndefined();
        ids.set(operation.operationId!, where);
        expect(operation.tags?.length, where).toBeGreaterThan(0);
        for (const tag of operation.tags!)
          expect(declaredTags.has(tag), `${where}: tag ${tag} not declared`).toBe(true);
        expect(operation.summary?.trim().length, where).toBeGreaterThan(0);
        expect(Object.keys(operation.responses ?? {}).length, where).toBeGreaterThan(0);
      }
    });

    it('declares security on the operations that need a credential', () => {
      const secured = operations().filter(({ operation }) => operation.security !== undefined);
      for (const [method, path] of [
        ['get', '/users/me'],
        ['patch', '/users/me'],
        ['get', '/users/search'],
        ['post', '/users/{userId}/follow'],
        ['post', '/users/me/social-links'],
        ['get', '/admin/users'],
        ['post', '/auth/logout'],
      ] as const) {
        expect(
          secured.some((op) => op.method === method && op.path === path),
          `${method} ${path}`,
        ).toBe(true);
      }
    });

    it('serves the interactive docs as HTML at /docs, with a content security policy', async () => {
      let res = await t.app.inject({ method: 'GET', url: '/docs' });
      if (res.statusCode >= 300 && res.statusCode < 400) {
        res = await t.app.inject({
          method: 'GET',
          url: new URL(String(res.headers['location']), 'http://x/docs').pathname,
        });
      }
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body.toLowerCase()).toContain('<html');
      expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    });
  });
});

// Apps with a non-default configuration are built after the main app of this file is closed, so only one app
// at a time is alive here.
describe('CORS with CORS_ORIGINS set', () => {
  let cors: TestApp;
  beforeAll(async () => {
    cors = await buildTestApp({ CORS_ORIGINS: 'https://app.example' });
  });
  afterAll(async () => cors.close());

  it('allows a listed origin, without credentials, exposing the rate-limit and request-id headers', async () => {
    const res = await cors.app.inject({
      method: 'GET',
      url: '/health',
      headers: { origin: 'https://app.example' },
    });
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    const exposed = String(res.headers['access-control-expose-headers']).toLowerCase();
    for (const header of [
      'x-request-id',
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
    ]) {
      expect(exposed).toContain(header);
    }
  });

  it.each(['GET', 'POST', 'PATCH', 'DELETE'])(
    'answers a preflight for %s from a listed origin, allowing the method and the credential header',
    async (method) => {
      const res = await cors.app.inject({
        method: 'OPTIONS',
        url: '/users/me',
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': method,
          'access-control-request-headers': 'x-api-key,content-type',
        },
      });
      expect(res.statusCode).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('https://app.example');
      const allowed = String(res.headers['access-control-allow-methods']).split(/\s*,\s*/);
      expect(allowed).toContain(method);
      expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toContain('x-api-key');
    },
  );

  it('gives no allow-origin to an unlisted origin', async () => {
    const res = await cors.app.inject({
      method: 'GET',
      url: '/health',
      headers: { origin: 'https://evil.example' },
    });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('rate limits', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await buildTestApp({ RATE_LIMIT: 'on' });
  });
  afterAll(async () => limited.close());

  const limitHeaders = (res: { headers: Record<string, unknown> }) => ({
    limit: Number(res.headers['x-ratelimit-limit']),
    remaining: Number(res.headers['x-ratelimit-remaining']),
    reset: Number(res.headers['x-ratelimit-reset']),
  });

  it('allows 300 per minute to an anonymous caller and counts down', async () => {
    const someone = await createUser(limited.app);
    const url = `/users/${someone.id}`;
    const first = await limited.app.inject({ method: 'GET', url, remoteAddress: '203.0.113.7' });
    const second = await limited.app.inject({ method: 'GET', url, remoteAddress: '203.0.113.7' });
    expect(first.statusCode).toBe(200);
    expect(limitHeaders(first)).toMatchObject({ limit: 300, remaining: 299 });
    expect(limitHeaders(second)).toMatchObject({ limit: 300, remaining: 298 });
    expect(limitHeaders(first).reset).toBeGreaterThan(0);
    expect(limitHeaders(first).reset).toBeLessThanOrEqual(60);
  });

  it('allows 600 per minute to an authenticated caller, keyed by account rather than IP', async () => {
    const caller = await createUser(limited.app);
    const first = await limited.app.inject({
      method: 'GET',
      url: '/users/me',
      headers: caller.headers,
      remoteAddress: '203.0.113.8',
    });
    expect(first.statusCode).toBe(200);
    expect(limitHeaders(first)).toMatchObject({ limit: 600, remaining: 599 });
    const elsewhere = await limited.app.inject({
      method: 'GET',
      url: '/users/me',
      headers: caller.headers,
      remoteAddress: '198.51.100.9',
    });
    expect(limitHeaders(elsewhere)).toMatchObject({ limit: 600, remaining: 598 });
    expect(limitHeaders(elsewhere).reset).toBeGreaterThan(0);
  });

  it('limits POST /auth/login to 10 per minute per IP: the 11th is 429 RATE_LIMITED with retry-after', async () => {
    const attempt = (remoteAddress: string) =>
      limited.app.inject({
        method: 'POST',
        url: '/auth/login',
        remoteAddress,
        payload: { login: 'nobody_here', password: 'wrong password' },
      });
    for (let i = 0; i < 10; i++) {
      const res = await attempt('192.0.2.50');
      expectError(res, 401, 'INVALID_CREDENTIALS');
      expect(Number(res.headers['x-ratelimit-limit'])).toBe(10);
    }
    const eleventh = await attempt('192.0.2.50');
    expectError(eleventh, 429, 'RATE_LIMITED');
    expect(Number(eleventh.headers['retry-after'])).toBeGreaterThan(0);
    expect(eleventh.headers['x-ratelimit-remaining']).toBe('0');
    // Another IP is not affected.
    expectError(await attempt('192.0.2.51'), 401, 'INVALID_CREDENTIALS');
  });

  it('limits POST /auth/register to 10 per minute per IP', async () => {
    const results = [];
    for (let i = 0; i < 11; i++) {
      results.push(
        await limited.app.inject({
          method: 'POST',
          url: '/auth/register',
          remoteAddress: '192.0.2.60',
          payload: { username: 'x', email: 'bad', password: 'short' },
        }),
      );
    }
    for (const res of results.slice(0, 10)) {
      expectError(res, 400, 'INVALID_REQUEST');
      expect(Number(res.headers['x-ratelimit-limit'])).toBe(10);
    }
    expectError(results[10]!, 429, 'RATE_LIMITED');
  });

  it('limits uploads to 60 per minute per caller', async () => {
    const uploader = await createUser(limited.app);
    const upload = () =>
      limited.app.inject({
        method: 'POST',
        url: '/users/me/image',
        headers: { ...uploader.headers, 'content-type': 'multipart/form-data; boundary=x' },
        payload: '--x--\r\n',
      });
    for (let i = 0; i < 60; i++) {
      const res = await upload();
      expectError(res, 400);
      expect(Number(res.headers['x-ratelimit-limit'])).toBe(60);
    }
    const limitedUpload = await upload();
    expectError(limitedUpload, 429, 'RATE_LIMITED');
    expect(Number(limitedUpload.headers['retry-after'])).toBeGreaterThan(0);
    // Other requests of the same caller are still allowed.
    expect(
      (await limited.app.inject({ method: 'GET', url: '/users/me', headers: uploader.headers })).statusCode,
    ).toBe(200);
  });
});

describe('several apps in one process', () => {
  it('builds two apps side by side, each on its own freshly migrated database', async () => {
    // On PostgreSQL each test app gets its own schema of one database, the way several services or tenants
    // can share a server: each must migrate its own schema whatever the others hold.
    const first = await buildTestApp();
    try {
      const second = await buildTestApp();
      try {
        for (const app of [first.app, second.app]) {
          const res = await app.inject({ method: 'GET', url: '/ready' });
          expect(res.json()).toEqual({
            status: 'ok',
            checks: { database: 'ok', migrations: 'ok', storage: 'ok' },
          });
        }
        const user = await createUser(second.app);
        expect(
          (await second.app.inject({ method: 'GET', url: '/users/me', headers: user.headers })).statusCode,
        ).toBe(200);
        expectError(await first.app.inject({ method: 'GET', url: '/users/me', headers: user.headers }), 401);
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
    // Two whole migrations: 4 s alone, past 30 s once with test:pg and test:s3 run side by side on two cores.
  }, 90_000);
});
