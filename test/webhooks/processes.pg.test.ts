// Exactly once across processes (extensions.md shared rules: background work "runs exactly once per item even with
// several processes"; §1.2 "deliveries of one webhook are attempted in event order"). Two real server processes on
// one PostgreSQL schema share the fan-out and the delivery claims (FOR UPDATE SKIP LOCKED) while concurrent writes
// through both of them record ~300 events. A receiver in this process records every request and which server
// process sent it: the sending socket is looked up in /proc (no header in src says who sent a delivery). A second
// test stalls one process's fan-out on a row lock (as a slow process would be) to check that a later event of the
// same webhook does not overtake the stalled one. Runs only under `npm run test:pg`.
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresUrl, migrateSchema } from '../helpers/app.js';
import { send, signUp, startServer, stopAll } from '../helpers/server-process.js';
import type { ProcessUser, ServerProcess } from '../helpers/server-process.js';

const SECRET = 'one-secret-for-every-process-of-this-deployment';
const USERS = 5;
const WEBHOOKS_PER_USER = 2;
const RESOURCES_PER_USER = 30;
const WRITERS = 8;

interface Received {
  hook: number;
  webhookId: string;
  /** The pid of the process whose socket sent the request (undefined: neither server's). */
  senderPid: number | undefined;
}

/** The inode of the TCP socket at 127.0.0.1:`localPort` connected to `remotePort`, from /proc/net/tcp. */
function socketInode(localPort: number, remotePort: number): string | undefined {
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10) continue;
    const local = Number.parseInt(fields[1]!.split(':')[1]!, 16);
    const remote = Number.parseInt(fields[2]!.split(':')[1]!, 16);
    if (local === localPort && remote === remotePort) return fields[9];
  }
  return undefined;
}

function ownsSocket(pid: number, inode: string): boolean {
  const wanted = `socket:[${inode}]`;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`) === wanted) return true;
    } catch {
      // The descriptor closed while we looked.
    }
  }
  return false;
}

/** Answers 204 after `delayMs` (so that both processes get work); records hook, webhook-id and sender. */
async function startTracingReceiver(senderPids: () => number[], delayMs: number) {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    // Looked up at once, while the sender's socket is certainly open.
    const { port } = server.address() as AddressInfo;
    const inode = socketInode(request.socket.remotePort!, port);
    const senderPid = inode === undefined ? undefined : senderPids().find((pid) => ownsSocket(pid, inode));
    request.resume();
    request.on('end', () => {
      received.push({
        hook: Number(/^\/hook\/(\d+)$/.exec(request.url ?? '')?.[1] ?? -1),
        webhookId: String(request.headers['webhook-id']),
        senderPid,
      });
      setTimeout(() => response.writeHead(204).end(), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    received,
    url: (hook: number) => `http://127.0.0.1:${port}/hook/${hook}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function until(what: string, condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Runs `tasks` with at most `width` at a time. */
async function inParallel(width: number, tasks: (() => Promise<void>)[]): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) await tasks[next++]!();
    }),
  );
}

function expectStatus(answer: { status: number; body: string }, status: number): void {
  expect(answer.status, answer.body).toBe(status);
}

let database: { url: string; drop: () => Promise<void> };
let db: pg.Client;
const dirs: string[] = [];
const servers: ServerProcess[] = [];
let ports: number[];
const portFor = (index: number) => ports[index % ports.length]!;

beforeAll(async () => {
  database = await freshPostgresUrl(process.env['TEST_DATABASE_URL']!);
  // Migrated here, so the two processes start side by side without racing to create the same tables.
  await migrateSchema(database.url);
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
  for (let index = 0; index < 2; index += 1) {
    const dataDir = mkdtempSync(join(tmpdir(), 'marketplace-processes-'));
    dirs.push(dataDir);
    servers.push(
      startServer({
        DATABASE_URL: database.url,
        DATA_DIR: dataDir,
        SECRET,
        OUTBOUND_ALLOW_PRIVATE: 'true',
        WEBHOOK_POLL_MS: '50',
        RATE_LIMIT: 'off',
        // Migrated above (test/helpers/app.ts migrateSchema).
        MIGRATE: 'false',
        PORT: '0',
        HOST: '127.0.0.1',
      }),
    );
  }
  ports = await Promise.all(servers.map(async (server) => (await server.listening).port));
}, 120_000);

afterAll(async () => {
  try {
    // Both stop cleanly (SIGTERM: exit 0) after all this.
    const stopped = await Promise.all(servers.map((server) => server.stop('SIGTERM')));
    expect(stopped.map((result) => result.code)).toEqual([0, 0]);
  } finally {
    stopAll();
    await db?.end();
    await database?.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
});

describe('two server processes on one PostgreSQL database', { timeout: 240_000 }, () => {
  it('deliver each (webhook, event) exactly once, every event in scope, each webhook in event order, both sending', async () => {
    const receiver = await startTracingReceiver(() => servers.map((server) => server.child.pid!), 10);
    try {
      const users: ProcessUser[] = [];
      for (let index = 0; index < USERS; index += 1) {
        users.push(await signUp(portFor(index), `multi_${process.pid}_${index}`));
      }
      const hooks: { user: ProcessUser; webhookId: string }[] = [];
      for (const [index, user] of users.entries()) {
        for (let copy = 0; copy < WEBHOOKS_PER_USER; copy += 1) {
          const hook = hooks.length;
          const created = await send(portFor(index + copy), 'POST', '/webhooks', {
            headers: user.headers,
            body: { url: receiver.url(hook), events: ['*'], scope: { kind: 'USER' } },
          });
          expectStatus(created, 201);
          hooks.push({ user, webhookId: (JSON.parse(created.body) as { id: string }).id });
        }
      }

      // Each resource is created through one process and changed through the other; the resources of one user
      // are written concurrently, so their events commit close together from both processes.
      const writes: (() => Promise<void>)[] = [];
      for (let number = 0; number < RESOURCES_PER_USER; number += 1) {
        for (const [index, user] of users.entries()) {
          writes.push(async () => {
            const slug = `multi-${process.pid}-${index}-${number}`;
            const created = await send(portFor(number), 'POST', '/resources', {
              headers: user.headers,
              body: { name: `Resource ${slug}`, slug, shortDescription: 'Before the change', type: 'MOD' },
            });
            expectStatus(created, 201);
            const { id } = JSON.parse(created.body) as { id: string };
            const changed = await send(portFor(number + 1), 'PATCH', `/resources/${id}`, {
              headers: user.headers,
              body: { shortDescription: `After change ${number}` },
            });
            expectStatus(changed, 200);
          });
        }
      }
      await inParallel(WRITERS, writes);

      const { rows: events } = await db.query<{
        id: string;
        user_id: string | null;
        audience_user_id: string | null;
      }>('select id, user_id, audience_user_id from events order by id');
      expect(events.length).toBeGreaterThanOrEqual(USERS * RESOURCES_PER_USER * 2);
      const expected = hooks.map(({ user }) =>
        events
          .filter((event) => event.user_id === user.id || event.audience_user_id === user.id)
          .map((event) => event.id),
      );

      // Done when every delivery row is SUCCEEDED and no webhook is claimed: then no request is in flight, and a
      // duplicate could not arrive later.
      await until(
        'every delivery to succeed',
        async () => {
          const { rows } = await db.query<{ open: string }>(
            `select (select count(*) from events where dispatched_at is null)
                  + (select count(*) from webhook_deliveries where status <> 'SUCCEEDED')
                  + (select count(*) from webhooks where busy_until is not null) as open`,
          );
          return Number(rows[0]!.open) === 0;
        },
        60_000,
      );

      const { rows: deliveryRows } = await db.query<{ webhook_id: string; event_id: string }>(
        'select webhook_id, event_id from webhook_deliveries order by webhook_id, event_id',
      );
      for (const [hook, { webhookId }] of hooks.entries()) {
        const ids = receiver.received.filter((request) => request.hook === hook).map((r) => r.webhookId);
        // Exactly once: nothing twice, nothing missing, nothing else.
        const repeated = ids.filter((id, position) => ids.indexOf(id) !== position);
        expect(repeated, `hook ${hook}: ids delivered more than once`).toEqual([]);
        expect([...ids].sort(), `hook ${hook}: the events in its scope`).toEqual(expected[hook]);
        expect(
          deliveryRows.filter((row) => row.webhook_id === webhookId).map((row) => row.event_id),
          `hook ${hook}: one delivery row per event`,
        ).toEqual(expected[hook]);
        // Event order: every webhook-id is greater than the one before it.
        const inversions = ids.flatMap((id, position) =>
          position > 0 && id <= ids[position - 1]! ? [`${ids[position - 1]} then ${id}`] : [],
        );
        expect(inversions, `hook ${hook}: deliveries out of event order`).toEqual([]);
      }
      expect(receiver.received).toHaveLength(expected.flat().length);

      // Both processes delivered (each request's socket belonged to one of them).
      const senders = new Map<number | undefined, number>();
      for (const request of receiver.received) {
        senders.set(request.senderPid, (senders.get(request.senderPid) ?? 0) + 1);
      }
      expect(senders.has(undefined), `requests from an unknown sender: ${senders.get(undefined)}`).toBe(
        false,
      );
      for (const server of servers) expect(senders.get(server.child.pid!) ?? 0).toBeGreaterThan(0);
    } finally {
      await receiver.close();
    }
  });

  it('a later event does not overtake an earlier one that another process is still fanning out', async () => {
    const receiver = await startTracingReceiver(() => servers.map((server) => server.child.pid!), 0);
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      const user = await signUp(portFor(0), `overtake_${process.pid}`);
      const webhook = async (hook: number, events: string[]) => {
        const created = await send(portFor(0), 'POST', '/webhooks', {
          headers: user.headers,
          body: { url: receiver.url(hook), events, scope: { kind: 'USER' } },
        });
        expectStatus(created, 201);
        return (JSON.parse(created.body) as { id: string }).id;
      };
      // Created first, so its delivery row comes first in the fan-out's insert (rows go in webhook id order).
      const creationsOnly = await webhook(1, ['resource.created']);
      await webhook(0, ['*']);

      // A fan-out that stalls in the middle, as a slow process's does: inserting the creation's delivery to
      // `creationsOnly` waits for this lock (the foreign key), while that fan-out holds the creation event.
      await holder.query('begin');
      await holder.query('select id from webhooks where id = $1 for update', [creationsOnly]);
      const slug = `overtake-${process.pid}`;
      const created = await send(portFor(0), 'POST', '/resources', {
        headers: user.headers,
        body: { name: `Resource ${slug}`, slug, shortDescription: 'First', type: 'MOD' },
      });
      expectStatus(created, 201);
      await until(
        'a fan-out to stall on the creation',
        async () => {
          const { rows } = await db.query<{ waiting: number }>(
            `select count(*)::int as waiting from pg_stat_activity
              where datname = current_database() and wait_event_type = 'Lock'
                and query ilike '%insert into "webhook_deliveries"%'`,
          );
          return rows[0]!.waiting > 0;
        },
        10_000,
      );
      const { id } = JSON.parse(created.body) as { id: string };
      const changed = await send(portFor(1), 'PATCH', `/resources/${id}`, {
        headers: user.headers,
        body: { shortDescription: 'Second' },
      });
      expectStatus(changed, 200);
      // An overtaking delivery would arrive within moments; waiting for it is bounded, and its absence is fine.
      await until('an overtaking delivery', () => Promise.resolve(receiver.received.length > 0), 3_000).catch(
        () => undefined,
      );
      await holder.query('rollback');

      const watched = () => receiver.received.filter((request) => request.hook === 0);
      await until('both deliveries', () => Promise.resolve(watched().length >= 2), 15_000);
      const { rows: events } = await db.query<{ id: string }>(
        'select id from events where user_id = $1 order by id',
        [user.id],
      );
      expect(events).toHaveLength(2);
      expect(watched().map((request) => request.webhookId)).toEqual(events.map((event) => event.id));
    } finally {
      await holder.end();
      await receiver.close();
    }
  });
});
