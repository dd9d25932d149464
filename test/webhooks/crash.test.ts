// Crash durability (extensions.md shared rules: background work is written in the change's transaction and
// "survives a restart"): a server process killed between the commit and the delivery loses no delivery. The next
// process on the same database sends it, with the same webhook-id, once the dead process's lease has run out.
// On a SQLite file by default (the same DATA_DIR for both processes), on a fresh PostgreSQL schema under test:pg.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import type { ExpectStatic } from 'vitest';
import { freshPostgresUrl, migrateSchema } from '../helpers/app.js';
import { send, signUp, startServer, stopAll } from '../helpers/server-process.js';
import type { ProcessUser } from '../helpers/server-process.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import type { Receiver } from '../helpers/webhook-receiver.js';

const SECRET = 'one-secret-for-every-process-of-this-deployment';
/** The lease is WEBHOOK_TIMEOUT_MS + 5 s: 6 s here. */
const TIMEOUT_MS = 1000;
const LEASE_MS = TIMEOUT_MS + 5000;
const cleanups: (() => Promise<void>)[] = [];

afterAll(async () => {
  stopAll();
  for (const cleanup of cleanups) await cleanup();
});

/** Environment for the processes of one deployment: one DATA_DIR, one database (SQLite in it, or a PG schema). */
async function deployment(): Promise<Record<string, string>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'marketplace-crash-'));
  const pgBase = process.env['TEST_DATABASE_URL'];
  const database = pgBase === undefined ? undefined : await freshPostgresUrl(pgBase);
  cleanups.push(async () => {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  // Migrated here (test/helpers/app.ts migrateSchema): the processes skip it.
  if (database !== undefined) await migrateSchema(database.url);
  return {
    DATA_DIR: dataDir,
    ...(database === undefined ? {} : { DATABASE_URL: database.url, MIGRATE: 'false' }),
    SECRET,
    OUTBOUND_ALLOW_PRIVATE: 'true',
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_POLL_MS: '100',
    PORT: '0',
    HOST: '127.0.0.1',
  };
}

async function openReceiver(): Promise<Receiver> {
  const receiver = await startReceiver();
  cleanups.push(() => receiver.close());
  return receiver;
}

async function until(what: string, condition: () => boolean | Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A webhook on the user's own events, and a resource whose creation is the event to deliver. */
async function webhookAndWrite(expect: ExpectStatic, port: number, user: ProcessUser, url: string) {
  const webhook = await send(port, 'POST', '/webhooks', {
    headers: user.headers,
    body: { url, events: ['*'], scope: { kind: 'USER' } },
  });
  expect(webhook.status, webhook.body).toBe(201);
  const slug = `crash-${user.username}`.replaceAll('_', '-');
  const resource = await send(port, 'POST', '/resources', {
    headers: user.headers,
    body: { name: `Resource ${slug}`, slug, shortDescription: 'Written just before a crash', type: 'MOD' },
  });
  expect(resource.status, resource.body).toBe(201);
  return {
    webhookId: (JSON.parse(webhook.body) as { id: string }).id,
    resourceId: (JSON.parse(resource.body) as { id: string }).id,
  };
}

async function deliveryLog(port: number, user: ProcessUser, webhookId: string) {
  const answer = await send(port, 'GET', `/webhooks/${webhookId}/deliveries`, { headers: user.headers });
  if (answer.status !== 200) throw new Error(`deliveries: ${answer.status} ${answer.body}`);
  return (JSON.parse(answer.body) as { deliveries: Record<string, unknown>[] }).deliveries;
}

// Each scenario starts two processes one after the other; they run side by side to keep the file short.
/** The webhook's delivery log once its newest delivery shows SUCCEEDED (recorded after the answer arrives). */
async function succeededLog(port: number, user: ProcessUser, webhookId: string) {
  let log: Record<string, unknown>[] = [];
  await until(
    'the delivery log to show SUCCEEDED',
    async () => {
      log = await deliveryLog(port, user, webhookId);
      return log[0]?.['status'] === 'SUCCEEDED';
    },
    5_000,
  );
  return log;
}

describe.concurrent('a process killed between commit and delivery', { timeout: 120_000 }, () => {
  it('mid-send: the next process sends the same delivery once the lease has run out, and logs it SUCCEEDED', async ({
    expect,
  }) => {
    const env = await deployment();
    const receiver = await openReceiver();
    let answered = 0;
    receiver.respond = () => (answered++ === 0 ? 'hang' : { status: 204 });

    const first = startServer(env);
    const { port } = await first.listening;
    const owner = await signUp(port, `mid_send_${process.pid}`);
    const { webhookId, resourceId } = await webhookAndWrite(expect, port, owner, receiver.url);
    await until('the first (hanging) request', () => receiver.received.length === 1, 20_000);
    const sentAt = Date.now();
    expect((await first.stop('SIGKILL')).signal).toBe('SIGKILL');

    // Timed from the restart's readiness: how long a process takes to start is not the worker's doing.
    const second = startServer(env);
    const { port: secondPort } = await second.listening;
    await until('the delivery from the second process', () => receiver.received.length === 2, 15_000);
    // Not before the dead process's lease ended: one delivery in flight per webhook, even across a crash.
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(LEASE_MS - 500);
    const [hung, delivered] = receiver.received;
    expect(delivered!.headers['webhook-id']).toBe(hung!.headers['webhook-id']);
    expect(JSON.parse(delivered!.body)).toMatchObject({
      id: hung!.headers['webhook-id'],
      type: 'resource.created',
      subject: { kind: 'resource', id: resourceId },
    });

    // The outcome is recorded after the 204 arrives.
    const log = await succeededLog(secondPort, owner, webhookId);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      eventId: hung!.headers['webhook-id'],
      eventType: 'resource.created',
      status: 'SUCCEEDED',
      lastResponseStatus: 204,
    });
    expect(receiver.received).toHaveLength(2);
    expect((await second.stop('SIGTERM')).code).toBe(0);
  });

  it('before any send (worker off): the next process, worker on, delivers the committed write', async ({
    expect,
  }) => {
    const env = await deployment();
    const receiver = await openReceiver();

    const first = startServer({ ...env, WEBHOOK_WORKER: 'false' });
    const { port } = await first.listening;
    const owner = await signUp(port, `unsent_${process.pid}`);
    const { webhookId, resourceId } = await webhookAndWrite(expect, port, owner, receiver.url);
    await first.stop('SIGKILL');
    expect(receiver.received).toHaveLength(0);

    const second = startServer(env);
    const { port: secondPort } = await second.listening;
    await until('the delivery from the second process', () => receiver.received.length === 1, 15_000);
    const [delivered] = receiver.received;
    expect(JSON.parse(delivered!.body)).toMatchObject({
      type: 'resource.created',
      subject: { kind: 'resource', id: resourceId },
    });
    const log = await succeededLog(secondPort, owner, webhookId);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      eventId: delivered!.headers['webhook-id'],
      status: 'SUCCEEDED',
      attempts: 1,
    });
    expect((await second.stop('SIGTERM')).code).toBe(0);
  });
});
