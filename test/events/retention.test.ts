// Upkeep of the event log and webhooks: events (and their deliveries) older than EVENT_RETENTION_DAYS go; a
// webhook whose subject was deleted stays until its deletion event went out, then goes; a banned creator's
// webhook carries only what the public sees.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/core/clock.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import type { Receiver } from '../helpers/webhook-receiver.js';
import { createResource, moderate } from '../resources/helpers.js';

let t: TestApp;
let owner: TestUser;
let moderator: TestUser;
let receiver: Receiver;

async function createWebhook(user: TestUser, scope: Record<string, unknown>): Promise<string> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/webhooks',
    headers: user.headers,
    payload: { url: receiver.url, events: ['*'], scope },
  });
  expect(response.statusCode, response.body).toBe(201);
  return (response.json() as { id: string }).id;
}

const countRows = async (table: 'events' | 'webhook_deliveries' | 'webhooks') =>
  Number(
    (
      await t.app.context.database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number | string>().as('count'))
        .executeTakeFirstOrThrow()
    ).count,
  );

beforeAll(async () => {
  t = await buildTestApp({
    OUTBOUND_ALLOW_PRIVATE: 'true',
    EVENT_RETENTION_DAYS: '30',
    EVENT_FEED_SETTLE_MS: '0',
  });
  moderator = await createUser(t.app, { role: 'MODERATOR' });
});
afterAll(async () => t.close());
beforeEach(async () => {
  owner = await createUser(t.app);
  receiver = await startReceiver();
});
afterEach(async () => receiver.close());

describe('retention', () => {
  it('purge-old-events deletes events older than EVENT_RETENTION_DAYS with their deliveries, and keeps the rest', async () => {
    await createWebhook(owner, { kind: 'USER' });
    const old = await createResource(t.app, owner);
    await t.app.webhookWorker.drain();
    expect(await countRows('webhook_deliveries')).toBeGreaterThan(0);
    t.clock.advance(30 * DAY_MS + 1000);
    const recent = await createResource(t.app, owner);
    await t.app.webhookWorker.drain();
    await t.app.context.scheduler.runNow('purge-old-events');
    const { db } = t.app.context.database;
    const left = await db.selectFrom('events').select(['subject_id', 'created_at']).execute();
    expect(left.map((row) => row.subject_id)).not.toContain(old.id);
    expect(left.map((row) => row.subject_id)).toContain(recent.id);
    const deliveries = await db
      .selectFrom('webhook_deliveries')
      .innerJoin('events', 'events.id', 'webhook_deliveries.event_id')
      .select('events.subject_id')
      .execute();
    expect(deliveries.map((row) => row.subject_id)).toEqual([recent.id]);
    expect(await countRows('webhook_deliveries')).toBe(1);
  });
});

describe('webhooks of deleted subjects', () => {
  it('stay until the deletion event went out, then purge-orphaned-webhooks removes them', async () => {
    const resource = await createResource(t.app, owner);
    const webhookId = await createWebhook(owner, { kind: 'RESOURCE', id: resource.id });
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/resources/${resource.id}`,
      headers: owner.headers,
    });
    expect(deleted.statusCode, deleted.body).toBe(204);
    // Not fanned out yet: the webhook must stay to receive resource.deleted.
    await t.app.context.scheduler.runNow('purge-orphaned-webhooks');
    const { db } = t.app.context.database;
    expect(
      await db.selectFrom('webhooks').select('id').where('id', '=', webhookId).executeTakeFirst(),
    ).toBeDefined();
    // Delivered while the receiver fails: still pending, still kept.
    receiver.respond = () => ({ status: 500 });
    await t.app.webhookWorker.drain();
    await t.app.context.scheduler.runNow('purge-orphaned-webhooks');
    expect(
      await db.selectFrom('webhooks').select('id').where('id', '=', webhookId).executeTakeFirst(),
    ).toBeDefined();
    receiver.respond = () => ({ status: 204 });
    t.clock.advance(60_000);
    await t.app.webhookWorker.drain();
    expect(receiver.received.map((request) => (JSON.parse(request.body) as { type: string }).type)).toContain(
      'resource.deleted',
    );
    await t.app.context.scheduler.runNow('purge-orphaned-webhooks');
    expect(
      await db.selectFrom('webhooks').select('id').where('id', '=', webhookId).executeTakeFirst(),
    ).toBeUndefined();
  });

  it('a webhook whose subject still exists is never removed', async () => {
    const resource = await createResource(t.app, owner);
    const webhookId = await createWebhook(owner, { kind: 'RESOURCE', id: resource.id });
    await t.app.webhookWorker.drain();
    await t.app.context.scheduler.runNow('purge-orphaned-webhooks');
    const row = await t.app.context.database.db
      .selectFrom('webhooks')
      .select('id')
      .where('id', '=', webhookId)
      .executeTakeFirst();
    expect(row).toBeDefined();
  });
});

describe('a banned creator', () => {
  it("gets only public events through their webhooks (their own pending resource's are withheld)", async () => {
    await createWebhook(owner, { kind: 'USER' });
    const hidden = await createResource(t.app, owner);
    const shown = await createResource(t.app, owner);
    await moderate(t.app, moderator, shown.id, 'APPROVE');
    await t.app.context.database.db
      .updateTable('users')
      .set({ status: 'BANNED' })
      .where('id', '=', owner.id)
      .execute();
    await t.app.webhookWorker.drain();
    const subjects = receiver.received.map(
      (request) => (JSON.parse(request.body) as { subject: { id: string } }).subject.id,
    );
    expect(subjects).not.toContain(hidden.id);
    expect(subjects).toContain(shown.id);
  });
});
