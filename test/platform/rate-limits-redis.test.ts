// Rate limits on Redis (issue 11, defect 5): shared while Redis answers, per process the moment it does not
// (never a 5xx, never a wait), shared again by themselves when it is back; /ready names its state; the
// process logs the loss once. Real Redis servers: redis-server child processes the tests start and stop, so the
// suite needs no Redis running.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { expectError } from '../helpers/http.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

/** A key namespace of its own, so two groups sharing one Redis never see each other's counters. */
const uniquePrefix = () => `test-rl-${process.pid}-${randomBytes(4).toString('hex')}:`;

async function deleteKeys(url: string, prefix: string): Promise<void> {
  const client = new Redis(url);
  const keys = await client.keys(`${prefix}*`);
  if (keys.length > 0) await client.del(...keys);
  await client.quit();
}

/** A throwaway redis-server on `port`, answering once this resolves. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((ready, failed) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) ready();
    });
    child.once('exit', (code) => failed(new Error(`redis-server exited with ${code}: ${output}`)));
  });
  child.stdout!.resume();
  return child;
}

async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((done) => {
    child.once('exit', () => done());
    child.kill(signal);
  });
}

/** Polls /ready until Redis shows `state` (the client reconnects on its own, at most a second apart). */
async function waitForRedis(t: TestApp, state: 'ok' | 'degraded', withinMs = 10_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const ready = (await t.app.inject({ method: 'GET', url: '/ready' })).json() as {
      checks: Record<string, string>;
    };
    if (ready.checks['redis'] === state) return;
    if (Date.now() > deadline) throw new Error(`redis still ${ready.checks['redis']} after ${withinMs} ms`);
    await new Promise((next) => setTimeout(next, 50));
  }
}

/**
 * `count` rate-limited requests that touch nothing but the limiter (unknown routes: no database, no storage),
 * so their time is the limiter's. Bounds are loose because the test machine is shared: a request that waited on
 * Redis would take a connect timeout or more (seconds), not milliseconds.
 */
async function timedRequests(t: TestApp, count: number, remoteAddress: string) {
  const times: number[] = [];
  const remaining: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const res = await t.app.inject({ method: 'GET', url: `/no-such-route/${i}`, remoteAddress });
    times.push(performance.now() - started);
    expectError(res, 404, 'NOT_FOUND');
    remaining.push(Number(res.headers['x-ratelimit-remaining']));
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(count / 2)]!, slowest: times[count - 1]!, remaining };
}

const login = (t: TestApp, remoteAddress: string) =>
  t.app.inject({
    method: 'POST',
    url: '/auth/login',
    remoteAddress,
    payload: { login: 'nobody_here', password: 'wrong password' },
  });

describe('rate limits with a healthy Redis', () => {
  const prefix = uniquePrefix();
  let first: TestApp;
  let second: TestApp;
  let redis: ChildProcess;
  let redisUrl: string;
  beforeAll(async () => {
    const port = await freePort();
    redis = await startRedis(port);
    redisUrl = `redis://127.0.0.1:${port}`;
    // These tests count on sharing, not on speed: a generous command timeout keeps a loaded test machine's
    // event-loop stall from being taken for a stalled Redis (which would count a request in process memory).
    const env = {
      RATE_LIMIT: 'on',
      REDIS_URL: redisUrl,
      RATE_LIMIT_REDIS_PREFIX: prefix,
      RATE_LIMIT_REDIS_TIMEOUT_MS: '10000',
    };
    [first, second] = await Promise.all([buildTestApp(env), buildTestApp(env)]);
    await Promise.all([waitForRedis(first, 'ok'), waitForRedis(second, 'ok')]);
  });
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await deleteKeys(redisUrl, prefix);
    await stopProcess(redis);
  });

  it('shares the login budget between two processes', async () => {
    for (let i = 0; i < 5; i++) {
      expectError(await login(first, '198.51.100.20'), 401, 'INVALID_CREDENTIALS');
      expectError(await login(second, '198.51.100.20'), 401, 'INVALID_CREDENTIALS');
    }
    expectError(await login(first, '198.51.100.20'), 429, 'RATE_LIMITED');
    expectError(await login(second, '198.51.100.20'), 429, 'RATE_LIMITED');
  });

  it('shares the failed-authentication budget between two processes', async () => {
    const headers = { 'x-api-key': `mk_${'A'.repeat(40)}` };
    const refuse = (t: TestApp) =>
      t.app.inject({ method: 'GET', url: '/users/me', headers, remoteAddress: '198.51.100.21' });
    for (let i = 0; i < 15; i++) {
      expectError(await refuse(first), 401);
      expectError(await refuse(second), 401);
    }
    expectError(await refuse(second), 429, 'RATE_LIMITED');
  });

  it('reports Redis as ok in /ready', async () => {
    const ready = await first.app.inject({ method: 'GET', url: '/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ status: 'ok', checks: { redis: 'ok' } });
  });
});

describe('rate limits with an unreachable Redis', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ RATE_LIMIT: 'on', REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
  });
  afterAll(async () => t.close());

  it('answers every request at once, without a 5xx, still limiting per process', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/resources' })).statusCode).toBe(200);
    const { median, slowest, remaining } = await timedRequests(t, 50, '198.51.100.30');
    expect(remaining).toEqual(Array.from({ length: 50 }, (_, i) => 299 - i));
    expect(median).toBeLessThan(10);
    expect(slowest).toBeLessThan(1000);
    for (let i = 0; i < 10; i++) await login(t, '198.51.100.31');
    expectError(await login(t, '198.51.100.31'), 429, 'RATE_LIMITED');
  });

  it('stays ready (200) and names Redis as degraded in /ready', async () => {
    const ready = await t.app.inject({ method: 'GET', url: '/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ status: 'degraded', checks: { redis: 'degraded', database: 'ok' } });
  });
});

describe('rate limits when Redis goes away and comes back', () => {
  const prefix = uniquePrefix();
  let port: number;
  let redis: ChildProcess;
  let t: TestApp;
  let probe: Redis;
  beforeAll(async () => {
    port = await freePort();
    redis = await startRedis(port);
    t = await buildTestApp({
      RATE_LIMIT: 'on',
      REDIS_URL: `redis://127.0.0.1:${port}`,
      RATE_LIMIT_REDIS_PREFIX: prefix,
    });
    probe = new Redis(`redis://127.0.0.1:${port}`, { lazyConnect: true, enableOfflineQueue: false });
    probe.on('error', () => undefined);
    // Until its connection is up the app counts in process memory (by design): start counting once it is.
    await waitForRedis(t, 'ok');
  });
  afterAll(async () => {
    await t.close();
    probe.disconnect();
    await stopProcess(redis);
  });

  const anonymousGet = (remoteAddress: string) =>
    t.app.inject({ method: 'GET', url: '/resources', remoteAddress });

  it('counts in Redis, falls back to process memory while it is down, and returns to it by itself', async () => {
    expect((await anonymousGet('198.51.100.40')).statusCode).toBe(200);
    await probe.connect();
    expect(await probe.get(`${prefix}ip:198.51.100.40`)).toBe('1');
    probe.disconnect();

    await stopProcess(redis);
    const whileDown = await timedRequests(t, 20, '198.51.100.41');
    expect(whileDown.remaining).toEqual(Array.from({ length: 20 }, (_, i) => 299 - i));
    expect(whileDown.median).toBeLessThan(10);
    expect(whileDown.slowest).toBeLessThan(1000);
    await waitForRedis(t, 'degraded');

    redis = await startRedis(port);
    await waitForRedis(t, 'ok');
    expect((await anonymousGet('198.51.100.42')).statusCode).toBe(200);
    await probe.connect();
    expect(await probe.get(`${prefix}ip:198.51.100.42`)).toBe('1');
  });

  it('treats a stalled Redis as lost: one short wait at most, then process memory, then Redis again', async () => {
    redis.kill('SIGSTOP');
    try {
      // The command timeout (250 ms by default) bounds the one wait; without it the first request would hang
      // until SIGCONT.
      const whileStalled = await timedRequests(t, 20, '198.51.100.43');
      expect(whileStalled.median).toBeLessThan(10);
      expect(whileStalled.slowest).toBeLessThan(1000);
      await waitForRedis(t, 'degraded');
    } finally {
      redis.kill('SIGCONT');
    }
    await waitForRedis(t, 'ok');
  });
});

describe('the server process with an unreachable Redis and TRUST_PROXY=true', () => {
  const ROOT = resolve(import.meta.dirname, '../..');
  let dataDir: string;
  let server: ChildProcess | undefined;
  afterEach(async () => {
    if (server !== undefined) await stopProcess(server);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves every request and logs the lost Redis and the insecure proxy setting once each', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'marketplace-rl-'));
    const port = await freePort();
    let output = '';
    server = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'server.ts')], {
      cwd: ROOT,
      env: {
        PATH: process.env['PATH'] ?? '',
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DATABASE_URL: `sqlite:${join(dataDir, 'db.sqlite')}`,
        REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
        TRUST_PROXY: 'true',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 45_000;
    for (;;) {
      if (server.exitCode !== null || Date.now() > deadline)
        throw new Error(`server did not start:\n${output}`);
      const health = await fetch(`${base}/health`).catch(() => undefined);
      if (health?.ok) break;
      await new Promise((next) => setTimeout(next, 100));
    }

    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${base}/resources`);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('300');
    }
    await stopProcess(server, 'SIGTERM');

    const lines = output.split('\n').filter((line) => line.startsWith('{'));
    const logged = lines.map((line) => JSON.parse(line) as { level: number; msg: string });
    const warnings = (pattern: RegExp) =>
      logged.filter((entry) => entry.level === 40 && pattern.test(entry.msg));
    expect(warnings(/^Redis unreachable/)).toHaveLength(1);
    expect(warnings(/^TRUST_PROXY=true/)).toHaveLength(1);
    expect(output).not.toContain('Unhandled error event');
  }, 60_000);
});
