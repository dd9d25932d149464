// GET /ready and database outages: readiness names each dependency, refuses an unmigrated database, and a
// database that is away answers 503 SERVICE_UNAVAILABLE with Retry-After instead of 500.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';

const opened: TestApp[] = [];

async function open(env: Record<string, string> = {}): Promise<TestApp> {
  const t = await buildTestApp(env);
  opened.push(t);
  return t;
}

afterEach(async () => {
  for (const t of opened.splice(0)) await t.close();
});

/** A local port nothing listens on: connections to it are refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const registration = (name: string) => ({
  method: 'POST' as const,
  url: '/auth/register',
  payload: { username: name, email: `${name}@example.com`, password: 'a long password' },
});

describe('GET /ready', () => {
  it('answers 200 naming every dependency, never cached', async () => {
    const t = await open();
    const res = await t.app.inject({ method: 'GET', url: '/ready' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'ok',
      checks: { database: 'ok', migrations: 'ok', storage: 'ok' },
    });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers 503 on a reachable but unmigrated database (MIGRATE=false)', async () => {
    const t = await open({ MIGRATE: 'false' });
    const res = await t.app.inject({ method: 'GET', url: '/ready' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({
      status: 'unavailable',
      checks: { database: 'ok', migrations: 'down', storage: 'ok' },
    });
  });

  it('stays 200 but says degraded when a non-critical dependency is down; 503 when a critical one is', async () => {
    const t = await open();
    t.app.context.readiness.register('cache', () => Promise.reject(new Error('refused')), {
      critical: false,
    });
    const degraded = await t.app.inject({ method: 'GET', url: '/ready' });
    expect(degraded.statusCode).toBe(200);
    expect(degraded.json()).toMatchObject({ status: 'degraded', checks: { cache: 'down', database: 'ok' } });

    t.app.context.readiness.register('search', () => Promise.resolve('down'), { critical: true });
    const down = await t.app.inject({ method: 'GET', url: '/ready' });
    expect(down.statusCode).toBe(503);
    expect(down.json()).toMatchObject({ status: 'unavailable', checks: { search: 'down', cache: 'down' } });
  });

  it('answers 503 shutting_down as soon as shutdown begins, while other requests are still served', async () => {
    const t = await open();
    t.app.context.readiness.setShuttingDown();
    const res = await t.app.inject({ method: 'GET', url: '/ready' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ status: 'shutting_down', checks: {} });
    expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });
});

describe('database outages answer 503 with Retry-After', () => {
  it('PostgreSQL unreachable (connection refused): requests 503 SERVICE_UNAVAILABLE, /ready 503', async () => {
    const port = await closedPort();
    const t = await open({ DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/none`, MIGRATE: 'false' });
    const res = await t.app.inject(registration('nobody'));
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toEqual({
      statusCode: 503,
      error: 'Service Unavailable',
      message: 'The database is unavailable; retry shortly',
      code: 'SERVICE_UNAVAILABLE',
      requestId: res.headers['x-request-id'],
    });
    const ready = await t.app.inject({ method: 'GET', url: '/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({
      status: 'unavailable',
      checks: { database: 'down', migrations: 'down' },
    });
  });

  it('SQLite write lock held elsewhere past busy_timeout (SQLITE_BUSY): 503 with Retry-After, then recovers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'marketplace-busy-'));
    const file = join(dir, 'busy.db');
    const t = await open({ DATABASE_URL: `sqlite:${file}` });
    // Keep the test fast: the app's write connection gives up after 50 ms instead of 5 s.
    await sql.raw('pragma busy_timeout = 50').execute(t.app.context.database.db);
    const otherProcess = new Sqlite(file);
    try {
      otherProcess.exec('begin immediate');
      const refused = await t.app.inject(registration('lockedout'));
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toBe('5');
      expect(refused.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      otherProcess.exec('rollback');
      expect((await t.app.inject(registration('lockedout'))).statusCode).toBe(201);
    } finally {
      otherProcess.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
