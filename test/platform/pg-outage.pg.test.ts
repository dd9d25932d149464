// PostgreSQL going away and coming back: terminated pooled connections (pg_terminate_backend, as in a restart or
// failover) must not end the process; while the database refuses connections /ready says 503 and requests 503
// with Retry-After; afterwards the service recovers by itself, and no acknowledged write is lost.
// Runs only under `npm run test:pg` (see vitest.config.ts): it disturbs a database of its own on that server.
import pg from 'pg';
import { sql } from 'kysely';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { get, startServer, stopAll } from '../helpers/server-process.js';

const SECRET = 'a-secret-of-at-least-thirty-two-characters!';
const serverUrl = process.env['TEST_DATABASE_URL']!;
const databaseName = `outage_${process.pid}_${Date.now().toString(36)}`;
let databaseUrl: string;

async function admin<Row extends pg.QueryResultRow = pg.QueryResultRow>(
  statement: string,
  values: unknown[] = [],
): Promise<Row[]> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return (await client.query<Row>(statement, values)).rows;
  } finally {
    await client.end();
  }
}

/** Ends every connection the service holds to its database, as a restart or failover does. */
const terminateBackends = () =>
  admin(
    'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
    [databaseName],
  );

/** The database refuses every new connection (and loses its current ones): the service's database is away. */
async function takeDatabaseAway(): Promise<void> {
  await admin(`alter database ${databaseName} with allow_connections false`);
  await terminateBackends();
}

const bringDatabaseBack = () => admin(`alter database ${databaseName} with allow_connections true`);

async function eventually<T>(attempt: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await attempt();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const registration = (name: string) => ({
  method: 'POST' as const,
  url: '/auth/register',
  payload: { username: name, email: `${name}@example.com`, password: 'a long password' },
});

/** A search: its statements run on the index-plan pool. */
const search = { method: 'GET' as const, url: '/resources?search=amber%20grove&sortBy=relevance' };

beforeAll(async () => {
  await admin(`create database ${databaseName}`);
  const url = new URL(serverUrl);
  url.pathname = `/${databaseName}`;
  databaseUrl = url.toString();
});

afterAll(async () => {
  stopAll();
  await admin(`drop database if exists ${databaseName} with (force)`);
});

describe('in process', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ DATABASE_URL: databaseUrl });
  });
  afterAll(async () => {
    await bringDatabaseBack();
    await t.close();
  });

  it('survives its idle pooled connections being terminated, and the next requests succeed', async () => {
    await Promise.all([1, 2, 3].map(() => t.app.inject({ method: 'GET', url: '/ready' })));
    // Searches hold connections of the second pool (core/db/index-plan-pool.ts): terminated too.
    expect((await t.app.inject(search)).statusCode).toBe(200);
    expect(t.app.context.database.indexPlanPool!.totalCount).toBeGreaterThan(0);
    expect((await terminateBackends()).length).toBeGreaterThan(0);
    const res = await eventually(
      () => t.app.inject(registration('afterkill')),
      (answer) => answer.statusCode !== 503,
    );
    expect(res.statusCode).toBe(201);
    const searched = await eventually(
      () => t.app.inject(search),
      (answer) => answer.statusCode !== 503,
    );
    expect(searched.statusCode).toBe(200);
  });

  it('survives a connection terminated inside a transaction, between two queries', async () => {
    const { db } = t.app.context.database;
    const failure = await db
      .transaction()
      .execute(async (trx) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        await admin('select pg_terminate_backend($1)', [rows[0]!.pid]);
        // Let the server's goodbye reach the idle, checked-out client (the case that had no 'error' listener).
        await eventually(
          () => admin('select 1 from pg_stat_activity where pid = $1', [rows[0]!.pid]),
          (found) => found.length === 0,
        );
        await new Promise((resolve) => setTimeout(resolve, 200));
        await sql`select 1`.execute(trx);
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(Error);
    expect((await t.app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200);
  });

  it('answers 503 with Retry-After and /ready 503 while the database is away, and recovers by itself', async () => {
    await takeDatabaseAway();
    const refused = await t.app.inject(registration('whileaway'));
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    const ready = await t.app.inject({ method: 'GET', url: '/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ status: 'unavailable', checks: { database: 'down' } });
    const searchedAway = await t.app.inject(search);
    expect(searchedAway.statusCode).toBe(503);
    expect(searchedAway.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });

    await bringDatabaseBack();
    const back = await eventually(
      () => t.app.inject({ method: 'GET', url: '/ready' }),
      (answer) => answer.statusCode === 200,
    );
    expect(back.statusCode).toBe(200);
    expect((await t.app.inject(registration('afterback'))).statusCode).toBe(201);
    const searchedBack = await eventually(
      () => t.app.inject(search),
      (answer) => answer.statusCode !== 503,
    );
    expect(searchedBack.statusCode).toBe(200);
  });
});

describe('a spawned server under load', () => {
  it('stays up through 5 outages, /ready goes 503 and back to 200, and every acknowledged write exists', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'marketplace-outage-'));
    const server = startServer({ DATABASE_URL: databaseUrl, SECRET, DATA_DIR: dataDir, PORT: '0' });
    try {
      const { port } = await server.listening;
      const acknowledged: string[] = [];
      const statuses = new Map<number, number>();
      let writing = true;
      let sequence = 0;
      const writer = async () => {
        while (writing) {
          const name = `load_${sequence++}`;
          const res = await fetch(`http://127.0.0.1:${port}/auth/register`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              username: name,
              email: `${name}@example.com`,
              password: 'a long password',
            }),
          });
          await res.arrayBuffer();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 201) acknowledged.push(name);
        }
      };
      const writers = [writer(), writer(), writer(), writer()];

      for (let round = 0; round < 5; round++) {
        await takeDatabaseAway();
        const down = await eventually(
          () => get(port, '/ready'),
          (answer) => answer.status === 503,
        );
        expect(down.status).toBe(503);
        await bringDatabaseBack();
        const up = await eventually(
          () => get(port, '/ready'),
          (answer) => answer.status === 200,
        );
        expect(up.status).toBe(200);
      }
      writing = false;
      await Promise.all(writers);

      expect(server.child.exitCode).toBeNull();
      expect(acknowledged.length).toBeGreaterThan(0);
      // Refusals during the outages are 503, never a 500.
      expect([...statuses.keys()].filter((status) => status !== 201 && status !== 503)).toEqual([]);
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      const { rows } = await client.query<{ username: string }>(
        'select username from users where username = any($1)',
        [acknowledged],
      );
      await client.end();
      expect(rows.map((row) => row.username).sort()).toEqual([...acknowledged].sort());

      server.child.kill('SIGTERM');
      expect((await server.exited).code).toBe(0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
