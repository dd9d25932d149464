// Rate limits the general allowance does not reach (issue 11): refused credentials, unknown routes, and the
// client address itself (TRUST_PROXY, IPv6). In-process counters; the Redis paths are in rate-limits-redis.
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** A well-formed key nobody holds: it passes the format check and reaches the database lookup. */
const randomKey = (prefix = 'mk_') =>
  prefix + [...randomBytes(40)].map((byte) => BASE62[byte % BASE62.length]).join('');

const limitHeaders = (res: LightMyRequestResponse) => ({
  limit: Number(res.headers['x-ratelimit-limit']),
  remaining: Number(res.headers['x-ratelimit-remaining']),
  reset: Number(res.headers['x-ratelimit-reset']),
});

describe('failed authentications are rate-limited per IP', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ RATE_LIMIT: 'on' });
  });
  afterAll(async () => t.close());

  const withKey = (key: string, remoteAddress: string, url = '/users/me') =>
    t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key }, remoteAddress });

  it('answers 401 to 30 unknown keys from one IP, then 429 with Retry-After', async () => {
    const ip = '203.0.113.30';
    for (let i = 0; i < 30; i++) {
      const refused = await withKey(randomKey(), ip);
      expectError(refused, 401, 'UNAUTHORIZED');
      expect(limitHeaders(refused)).toMatchObject({ limit: 30, remaining: 29 - i });
    }
    const limited = await withKey(randomKey(), ip);
    expectError(limited, 429, 'RATE_LIMITED');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limitHeaders(limited)).toMatchObject({ limit: 30, remaining: 0 });
    // Malformed keys and unknown bearer tokens spend the same budget.
    expectError(await withKey('not-a-key', ip), 429, 'RATE_LIMITED');
    const bearer = await t.app.inject({
      method: 'GET',
      url: '/resources',
      headers: { authorization: `Bearer ${randomKey('ms_')}` },
      remoteAddress: ip,
    });
    expectError(bearer, 429, 'RATE_LIMITED');
  });

  it('keeps accepting valid keys and anonymous calls from a locked-out IP (clients behind one NAT)', async () => {
    const ip = '203.0.113.31';
    const user = await createUser(t.app);
    for (let i = 0; i < 31; i++) await withKey(randomKey(), ip);
    expectError(await withKey(randomKey(), ip), 429, 'RATE_LIMITED');

    const valid = await withKey(user.apiKey, ip);
    expect(valid.statusCode).toBe(200);
    expect(limitHeaders(valid)).toMatchObject({ limit: 600, remaining: 599 });
    // Refusals are their own budget: the anonymous allowance of the IP is untouched.
    const anonymous = await t.app.inject({ method: 'GET', url: `/users/${user.id}`, remoteAddress: ip });
    expect(anonymous.statusCode).toBe(200);
    expect(limitHeaders(anonymous)).toMatchObject({ limit: 300, remaining: 299 });
  });

  it('counts a banned account’s refused key the same way', async () => {
    const ip = '203.0.113.34';
    const admin = await createUser(t.app, { role: 'ADMIN' });
    const banned = await createUser(t.app);
    const ban = await t.app.inject({
      method: 'PATCH',
      url: `/admin/users/${banned.id}`,
      headers: admin.headers,
      payload: { status: 'BANNED' },
    });
    expect(ban.statusCode).toBe(200);
    for (let i = 0; i < 30; i++) expectError(await withKey(banned.apiKey, ip), 403, 'ACCOUNT_BANNED');
    expectError(await withKey(banned.apiKey, ip), 429, 'RATE_LIMITED');
  });

  it('counts each IP separately', async () => {
    for (let i = 0; i < 31; i++) await withKey(randomKey(), '203.0.113.32');
    expectError(await withKey(randomKey(), '203.0.113.32'), 429, 'RATE_LIMITED');
    const elsewhere = await withKey(randomKey(), '203.0.113.33');
    expectError(elsewhere, 401, 'UNAUTHORIZED');
    expect(limitHeaders(elsewhere)).toMatchObject({ limit: 30, remaining: 29 });
  });
});

describe('unknown routes are rate-limited like any other request', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ RATE_LIMIT: 'on' });
  });
  afterAll(async () => t.close());

  it('carries the rate-limit headers on every 404 and answers 429 once the allowance is spent', async () => {
    const ip = '198.51.100.40';
    for (let i = 0; i < 300; i++) {
      const missing = await t.app.inject({ method: 'GET', url: `/no-such-route/${i}`, remoteAddress: ip });
      expectError(missing, 404, 'NOT_FOUND');
      expect(limitHeaders(missing)).toMatchObject({ limit: 300, remaining: 299 - i });
      expect(limitHeaders(missing).reset).toBeGreaterThan(0);
    }
    const limited = await t.app.inject({ method: 'POST', url: '/no-such-route', remoteAddress: ip });
    expectError(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // One allowance per caller: the 404 flood spent the IP's budget for real routes too.
    expectError(await t.app.inject({ method: 'GET', url: '/resources', remoteAddress: ip }), 429);
  });

  it('counts an authenticated caller’s 404s against the account', async () => {
    const user = await createUser(t.app);
    const missing = await t.app.inject({ method: 'GET', url: '/nothing-here', headers: user.headers });
    expectError(missing, 404, 'NOT_FOUND');
    expect(limitHeaders(missing)).toMatchObject({ limit: 600, remaining: 599 });
  });

  it('limits the API documentation like any other route', async () => {
    for (const url of ['/docs', '/docs/json', '/openapi.json']) {
      const res = await t.app.inject({ method: 'GET', url, remoteAddress: '198.51.100.42' });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['x-ratelimit-limit'], url).toBe('300');
    }
  });

  it('leaves the health probes exempt, so a busy balancer address never fails its own checks', async () => {
    const ip = '198.51.100.41';
    for (let i = 0; i < 301; i++) await t.app.inject({ method: 'GET', url: '/missing', remoteAddress: ip });
    for (const url of ['/health', '/ready']) {
      const probe = await t.app.inject({ method: 'GET', url, remoteAddress: ip });
      expect(probe.statusCode).toBe(200);
      expect(probe.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });
});

describe('configurable numbers (RATE_LIMIT_*)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({
      RATE_LIMIT: 'on',
      RATE_LIMIT_AUTHENTICATED: '4',
      RATE_LIMIT_ANONYMOUS: '3',
      RATE_LIMIT_AUTH_ATTEMPTS: '2',
      RATE_LIMIT_UPLOADS: '1',
      RATE_LIMIT_FAILED_AUTH: '5',
    });
  });
  afterAll(async () => t.close());

  it('applies each configured limit', async () => {
    const user = await createUser(t.app);
    const own = await t.app.inject({ method: 'GET', url: '/users/me', headers: user.headers });
    expect(limitHeaders(own)).toMatchObject({ limit: 4, remaining: 3 });
    const anonymous = await t.app.inject({ method: 'GET', url: '/resources', remoteAddress: '192.0.2.80' });
    expect(limitHeaders(anonymous)).toMatchObject({ limit: 3, remaining: 2 });
    const login = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      remoteAddress: '192.0.2.81',
      payload: { login: 'nobody_here', password: 'wrong password' },
    });
    expect(limitHeaders(login)).toMatchObject({ limit: 2, remaining: 1 });
    const upload = await t.app.inject({
      method: 'POST',
      url: '/users/me/image',
      headers: { ...user.headers, 'content-type': 'multipart/form-data; boundary=x' },
      payload: '--x--\r\n',
    });
    expect(limitHeaders(upload)).toMatchObject({ limit: 1, remaining: 0 });
    const refused = await t.app.inject({
      method: 'GET',
      url: '/users/me',
      headers: { 'x-api-key': randomKey() },
      remoteAddress: '192.0.2.82',
    });
    expect(limitHeaders(refused)).toMatchObject({ limit: 5, remaining: 4 });
  });

  it('refuses a limit that is not a positive whole number, naming the variable', () => {
    for (const bad of ['0', '-1', 'many', '1.5']) {
      expect(() =>
        loadConfig({ DATA_DIR: tmpdir(), SECRET: 'x'.repeat(32), RATE_LIMIT_ANONYMOUS: bad }),
      ).toThrow(/RATE_LIMIT_ANONYMOUS/);
    }
  });
});

describe('the client address behind proxies (TRUST_PROXY)', () => {
  const login = (t: TestApp, remoteAddress: string, forwardedFor?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/auth/login',
      remoteAddress,
      headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
      payload: { login: 'nobody_here', password: 'wrong password' },
    });

  describe('trusting the balancer by address', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp({ RATE_LIMIT: 'on', TRUST_PROXY: '10.0.0.1' });
    });
    afterAll(async () => t.close());

    it('ignores X-Forwarded-For from any other peer: rotating it does not escape the login limit', async () => {
      for (let i = 0; i < 10; i++) {
        expectError(await login(t, '203.0.113.50', `192.0.2.${i + 1}`), 401, 'INVALID_CREDENTIALS');
      }
      expectError(await login(t, '203.0.113.50', '192.0.2.200'), 429, 'RATE_LIMITED');
    });

    it('takes the client address from the trusted balancer, one budget per client', async () => {
      for (let i = 0; i < 10; i++) await login(t, '10.0.0.1', '198.51.100.60');
      expectError(await login(t, '10.0.0.1', '198.51.100.60'), 429, 'RATE_LIMITED');
      // A client that forges a hop in front of the balancer is still counted by the address the balancer saw.
      expectError(await login(t, '10.0.0.1', '192.0.2.99, 198.51.100.60'), 429, 'RATE_LIMITED');
      expectError(await login(t, '10.0.0.1', '198.51.100.61'), 401, 'INVALID_CREDENTIALS');
    });
  });

  describe('trusting one hop (TRUST_PROXY=1)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp({ RATE_LIMIT: 'on', TRUST_PROXY: '1' });
    });
    afterAll(async () => t.close());

    it('takes only the last hop, so forged entries in front of it change nothing', async () => {
      for (let i = 0; i < 10; i++) {
        expectError(
          await login(t, '10.0.0.7', `192.0.2.${i + 1}, 198.51.100.70`),
          401,
          'INVALID_CREDENTIALS',
        );
      }
      expectError(await login(t, '10.0.0.7', '192.0.2.250, 198.51.100.70'), 429, 'RATE_LIMITED');
      expectError(await login(t, '10.0.0.7', '198.51.100.71'), 401, 'INVALID_CREDENTIALS');
    });
  });

  describe('IPv6 clients', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp({ RATE_LIMIT: 'on' });
    });
    afterAll(async () => t.close());

    it('counts a /64 as one client, so rotating addresses inside it does not escape the login limit', async () => {
      for (let i = 0; i < 10; i++) await login(t, `2001:db8:1:2::${(i + 1).toString(16)}`);
      expectError(await login(t, '2001:db8:1:2:ffff::1'), 429, 'RATE_LIMITED');
      expectError(await login(t, '2001:db8:1:3::1'), 401, 'INVALID_CREDENTIALS');
    });
  });

  describe('configuration', () => {
    const trustProxy = (value: string) =>
      loadConfig({ DATA_DIR: tmpdir(), SECRET: 'x'.repeat(32), TRUST_PROXY: value }).trustProxy;

    it('reads a number as a hop count and addresses/CIDRs as a list', () => {
      expect(trustProxy('1')).toBe(1);
      expect(trustProxy('2')).toBe(2);
      expect(trustProxy('10.0.0.1, 10.1.0.0/16,fd00::/8, loopback')).toEqual([
        '10.0.0.1',
        '10.1.0.0/16',
        'fd00::/8',
        'loopback',
      ]);
      expect(trustProxy('10.0.0.0/255.0.0.0')).toEqual(['10.0.0.0/255.0.0.0']);
    });

    it('keeps true (warned at start) and reads 0, false and off as no proxy', () => {
      expect(trustProxy('true')).toBe(true);
      for (const off of ['0', 'false', 'off']) expect(trustProxy(off)).toBe(false);
    });

    it('refuses anything else, naming the variable', () => {
      for (const bad of ['balancer.internal', '10.0.0.1/33', '10.0.0.300', '99']) {
        expect(() => trustProxy(bad)).toThrow(ConfigError);
        expect(() => trustProxy(bad)).toThrow(/TRUST_PROXY/);
      }
    });
  });
});
