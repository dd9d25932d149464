// Two instances of the service on ONE PostgreSQL database (issue 18): each keeps anonymous answers, download
// decisions and list pages (core/db/pg-change-signal.ts), and a write committed through one is never served
// stale by the other once the writer's response has returned — also after the other's connections were
// terminated (pg_terminate_backend, as in a failover), from which it recovers by itself.
// Runs only under `npm run test:pg` (see vitest.config.ts).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { createResourceCast, moderate as moderateResource, resourceFor } from '../resources/helpers.js';
import type { ResourceCast } from '../resources/helpers.js';
import { createApprovedServer, moderate as moderateServer } from '../servers/helpers.js';
import { versionIn, versionUrl } from '../versions/helpers.js';
import { quietly, selectsOf } from './change-signal-helpers.js';

const serverUrl = process.env['TEST_DATABASE_URL']!;
/** A database of their own: the test takes it away for a while. */
const databaseName = `signal_${process.pid}_${Date.now().toString(36)}`;
/** Names B's connections in pg_stat_activity, so the test can terminate exactly them. */
const B_NAME = `b_${databaseName}`;

let databaseUrl: string;
/** The writer. */
let a: TestApp;
/** The reader that keeps answers. */
let b: TestApp;
let cast: ResourceCast;

async function admin(statement: string, values: unknown[] = []): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return (await client.query(statement, values)).rows;
  } finally {
    await client.end();
  }
}

/** Ends every connection B holds (its pool's, the fence's among them), as a restart or failover does. */
/**
 * How long pg_terminate_backend waits for each backend to be gone (PostgreSQL 14+). Without it the call returns
 * once the signal is sent, and on a loaded machine the next statement could still reach a backend on its way out
 * (57P01, answered 503), where each test means the connections to be gone already.
 */
const TERMINATION_WAIT_MS = 10_000;

async function terminateB(): Promise<void> {
  const ended = await admin(
    `select pg_terminate_backend(pid, ${TERMINATION_WAIT_MS}) from pg_stat_activity where application_name = $1`,
    [B_NAME],
  );
  expect(ended.length).toBeGreaterThan(0);
}

/**
 * An anonymous GET on B. Right after its connections were terminated a request may answer 503 (like any query
 * while the database is away): retried until it does not. Never a stale 200.
 */
async function readB(url: string): Promise<LightMyRequestResponse> {
  for (let attempt = 0; ; attempt++) {
    const response = await b.app.inject({ method: 'GET', url });
    if (response.statusCode !== 503 || attempt === 100) return response;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(async () => {
  await admin(`create database ${databaseName}`);
  const url = new URL(serverUrl);
  url.pathname = `/${databaseName}`;
  databaseUrl = url.toString();
  const bUrl = new URL(databaseUrl);
  bUrl.searchParams.set('application_name', B_NAME);
  a = await buildTestApp({ DATABASE_URL: databaseUrl });
  b = await buildTestApp({ DATABASE_URL: bUrl.toString(), METRICS: 'on' });
  cast = await createResourceCast(a.app);
});

afterAll(async () => {
  await admin(`alter database ${databaseName} with allow_connections true`);
  await b?.close();
  await a?.close();
  await admin(`drop database if exists ${databaseName} with (force)`);
});

describe('two processes on one PostgreSQL database', () => {
  it('keeps anonymous answers on the reader: a kept answer costs the fence alone', async () => {
    const user = await createUser(a.app);
    const url = `/users/${user.id}`;
    const first = await readB(url);
    expect(first.statusCode).toBe(200);
    const kept = await quietly(b, async () => {
      await readB(url);
      let answer!: LightMyRequestResponse;
      const cost = await selectsOf(b, async () => (answer = await readB(url)));
      expect(answer.body).toBe(first.body);
      expect(answer.headers.etag).toBe(first.headers.etag);
      return cost;
    });
    expect(kept).toBe(1);
  });

  it('shows a profile edit made through the other instance at once, by id and by username', async () => {
    const user = await createUser(a.app);
    const byId = `/users/${user.id}`;
    const byName = `/users/username/${user.username}`;
    for (const bio of ['first', 'second', 'third']) {
      expect((await readB(byId)).statusCode).toBe(200);
      expect((await readB(byName)).statusCode).toBe(200);
      await editBio(a, user, bio);
      expect((await readB(byId)).json().bio).toBe(bio);
      expect((await readB(byName)).json().bio).toBe(bio);
    }
  });

  it('shows a write of a third process (a plain connection) at once', async () => {
    const user = await createUser(a.app);
    expect((await readB(`/users/${user.id}`)).json().bio).toBeNull();
    const outside = new pg.Client({ connectionString: databaseUrl });
    await outside.connect();
    try {
      await outside.query('update users set bio = $1 where id = $2', ['from a third process', user.id]);
    } finally {
      await outside.end();
    }
    expect((await readB(`/users/${user.id}`)).json().bio).toBe('from a third process');
  });

  it('shows a resource edit and suspension at once, by slug and by id', async () => {
    const resource = await resourceFor(a.app, cast, 'USER', 'APPROVED');
    const bySlug = `/resources/slug/${resource.slug}`;
    expect((await readB(bySlug)).json().name).toBe(resource.name);
    expect((await readB(`/resources/${resource.id}`)).statusCode).toBe(200);
    const edit = await a.app.inject({
      method: 'PATCH',
      url: `/resources/${resource.id}`,
      headers: cast.owner.headers,
      payload: { name: 'Renamed on A' },
    });
    expect(edit.statusCode, edit.body).toBe(200);
    expect((await readB(bySlug)).json().name).toBe('Renamed on A');
    await moderateResource(a.app, cast.moderator, resource.id, 'SUSPEND');
    expect((await readB(bySlug)).statusCode).toBe(404);
    expect((await readB(`/resources/${resource.id}`)).statusCode).toBe(404);
  });

  it('shows a server suspension at once, by slug and by id', async () => {
    const server = await createApprovedServer(a.app, cast.owner, cast.moderator);
    expect((await readB(`/servers/slug/${server.slug}`)).statusCode).toBe(200);
    expect((await readB(`/servers/${server.id}`)).statusCode).toBe(200);
    await moderateServer(a.app, cast.moderator, server.id, 'suspend');
    expect((await readB(`/servers/slug/${server.slug}`)).statusCode).toBe(404);
    expect((await readB(`/servers/${server.id}`)).statusCode).toBe(404);
  });

  it('drops a kept download decision at once: the resource suspended, the file deleted', async () => {
    const resource = await resourceFor(a.app, cast, 'USER', 'APPROVED');
    const actors = { editor: cast.owner, moderator: cast.moderator };
    const version = await versionIn(a.app, actors, resource.id, 'APPROVED', [
      { data: Buffer.from('one\n'), name: 'one.txt' },
      { data: Buffer.from('two\n'), name: 'two.txt' },
    ]);
    const [first, second] = version.files;
    const download = (fileId: string) => readB(`${versionUrl(resource.id, version.id)}/download/${fileId}`);
    expect((await download(first!.id)).statusCode).toBe(302);
    expect((await download(first!.id)).statusCode).toBe(302);
    await moderateResource(a.app, cast.moderator, resource.id, 'SUSPEND');
    expect((await download(first!.id)).statusCode).toBe(404);
    await moderateResource(a.app, cast.moderator, resource.id, 'UNSUSPEND');
    expect((await download(first!.id)).statusCode).toBe(302);
    expect((await download(second!.id)).statusCode).toBe(302);
    const removed = await a.app.inject({
      method: 'DELETE',
      url: `${versionUrl(resource.id, version.id)}/files/${second!.id}`,
      headers: cast.owner.headers,
    });
    expect(removed.statusCode, removed.body).toBeLessThan(300);
    expect((await download(second!.id)).statusCode).toBe(404);
    expect((await download(first!.id)).statusCode).toBe(302);
  });

  it('drops a kept list page at once after moderation on the other instance', async () => {
    const resource = await resourceFor(a.app, cast, 'USER', 'APPROVED');
    const server = await createApprovedServer(a.app, cast.owner, cast.moderator);
    const listed = async () => ({
      resources: ((await readB('/resources?limit=100')).json().resources as Array<{ id: string }>).map(
        (r) => r.id,
      ),
      servers: ((await readB('/servers?limit=100')).json().servers as Array<{ id: string }>).map((s) => s.id),
    });
    const before = await listed();
    expect(before.resources).toContain(resource.id);
    expect(before.servers).toContain(server.id);
    await moderateResource(a.app, cast.moderator, resource.id, 'SUSPEND');
    await moderateServer(a.app, cast.moderator, server.id, 'suspend');
    const after = await listed();
    expect(after.resources).not.toContain(resource.id);
    expect(after.servers).not.toContain(server.id);
  });

  it('recovers by itself after its connections are terminated, and is never stale across the gap', async () => {
    const user = await createUser(a.app);
    const resource = await resourceFor(a.app, cast, 'USER', 'APPROVED');
    const profile = `/users/${user.id}`;
    const bySlug = `/resources/slug/${resource.slug}`;
    for (const round of [1, 2, 3]) {
      // Kept on B…
      expect((await readB(profile)).statusCode).toBe(200);
      expect((await readB(bySlug)).statusCode).toBe(200);
      expect((await readB('/resources')).statusCode).toBe(200);
      // …B loses every connection, A writes, B answers: fresh, never the kept answer.
      await terminateB();
      await editBio(a, user, `round ${round}`);
      expect((await readB(profile)).json().bio).toBe(`round ${round}`);
      await terminateB();
      const rename = await a.app.inject({
        method: 'PATCH',
        url: `/resources/${resource.id}`,
        headers: cast.owner.headers,
        payload: { name: `Renamed in round ${round}` },
      });
      expect(rename.statusCode, rename.body).toBe(200);
      expect((await readB(bySlug)).json().name).toBe(`Renamed in round ${round}`);
      const page = (await readB('/resources?limit=100')).json().resources as Array<{
        id: string;
        name: string;
      }>;
      expect(page.find((r) => r.id === resource.id)?.name).toBe(`Renamed in round ${round}`);
    }
    // Terminated while nothing was written: B answers (kept or not), then keeps again.
    await terminateB();
    expect((await readB(profile)).json().bio).toBe('round 3');
    const cost = await quietly(b, async () => {
      await readB(profile);
      return selectsOf(b, () => readB(profile));
    });
    expect(cost).toBe(1);
  });

  it('answers 503 while the database is away instead of a kept answer, and recovers by itself', async () => {
    const user = await createUser(a.app);
    const profile = `/users/${user.id}`;
    expect((await readB(profile)).statusCode).toBe(200);
    expect((await readB(profile)).statusCode).toBe(200);
    await admin(`alter database ${databaseName} with allow_connections false`);
    await admin(
      `select pg_terminate_backend(pid, ${TERMINATION_WAIT_MS}) from pg_stat_activity where datname = $1`,
      [databaseName],
    );
    const away = await b.app.inject({ method: 'GET', url: profile });
    expect(away.statusCode).toBe(503);
    expect(away.headers['retry-after']).toBeDefined();
    await admin(`alter database ${databaseName} with allow_connections true`);
    await editBio(a, user, 'after the outage');
    expect((await readB(profile)).json().bio).toBe('after the outage');
  });
});

async function editBio(t: TestApp, user: TestUser, bio: string): Promise<void> {
  const patch = await t.app.inject({
    method: 'PATCH',
    url: '/users/me',
    headers: user.headers,
    payload: { bio },
  });
  expect(patch.statusCode, patch.body).toBe(200);
}
