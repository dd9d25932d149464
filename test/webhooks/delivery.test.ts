// Webhook delivery (spec/extensions.md §1.2): Standard Webhooks signatures verified with the standard's own
// library (also across a rotation), the retry schedule on the app's clock, FAILED after the last attempt, the
// failure streak and auto-disable, event order per webhook, a hanging receiver not holding up the others,
// redirects not followed, the outbound guard at delivery time, the Discord format and the 1 KB response cap.
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import type { Receiver } from '../helpers/webhook-receiver.js';
import { addContributor, createResource, moderate } from '../resources/helpers.js';
import { RETRY_DELAYS_MS } from '../../src/core/outbound/retry.js';
import { createSecretBox, newWebhookSecret } from '../../src/core/events/secret-box.js';
import { newId, uuidV7Floor } from '../../src/core/ids.js';
import { recordEvent } from '../../src/core/events/record.js';

interface CreatedWebhook {
  id: string;
  secret: string;
}

let t: TestApp;
let owner: TestUser;
let moderator: TestUser;
let receiver: Receiver;

async function createWebhook(
  user: TestUser,
  body: Record<string, unknown> & { url: string },
): Promise<CreatedWebhook> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/webhooks',
    headers: user.headers,
    payload: { events: ['*'], scope: { kind: 'USER' }, ...body },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as CreatedWebhook;
}

async function deliveries(user: TestUser, webhookId: string) {
  const response = await t.app.inject({
    method: 'GET',
    url: `/webhooks/${webhookId}/deliveries?limit=100`,
    headers: user.headers,
  });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { deliveries: Record<string, unknown>[] }).deliveries;
}

beforeAll(async () => {
  t = await buildTestApp({
    OUTBOUND_ALLOW_PRIVATE: 'true',
    WEBHOOK_TIMEOUT_MS: '400',
    // Fan events out at once on PostgreSQL too (the settle window has its own test below).
    EVENT_FEED_SETTLE_MS: '0',
  });
  moderator = await createUser(t.app, { role: 'MODERATOR' });
});

afterAll(async () => {
  await t.close();
});

beforeEach(async () => {
  owner = await createUser(t.app);
  receiver = await startReceiver();
});

afterEach(async () => {
  await receiver.close();
});

describe('a delivered event', () => {
  it('is the event object, signed per Standard Webhooks and verifiable with its library', async () => {
    const webhook = await createWebhook(owner, { url: receiver.url });
    const resource = await createResource(t.app, owner);
    const outcomes = await t.app.webhookWorker.drain();
    expect(outcomes.map((outcome) => outcome.result)).toEqual(['succeeded']);
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    const headers = request!.headers as Record<string, string>;
    const verified = new Webhook(webhook.secret).verify(request!.body, headers) as Record<string, unknown>;
    expect(verified).toMatchObject({
      type: 'resource.created',
      subject: { kind: 'resource', id: resource.id },
      actor: { id: owner.id, username: owner.username },
    });
    expect(headers['webhook-id']).toBe(verified['id']);
    expect(headers['user-agent']).toMatch(/^Marketplace-Webhooks\//);
    expect(headers['content-type']).toBe('application/json');
    // A different secret does not verify.
    const other = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
    expect(() => new Webhook(other).verify(request!.body, headers)).toThrow();
    const [delivery] = await deliveries(owner, webhook.id);
    expect(delivery).toMatchObject({ status: 'SUCCEEDED', attempts: 1, lastResponseStatus: 204 });
  });

  it('carries two signatures for 24 hours after a rotation, one per secret', async () => {
    const webhook = await createWebhook(owner, { url: receiver.url });
    const rotated = await t.app.inject({
      method: 'POST',
      url: `/webhooks/${webhook.id}/rotate-secret`,
      headers: owner.headers,
    });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const { secret } = rotated.json() as { secret: string };
    await createResource(t.app, owner);
    await t.app.webhookWorker.drain();
    const first = receiver.received[0]!;
    const headers = first.headers as Record<string, string>;
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(secret).verify(first.body, headers)).toBeTruthy();
    expect(new Webhook(webhook.secret).verify(first.body, headers)).toBeTruthy();

    t.clock.advance(24 * 60 * 60 * 1000 + 1000);
    await createResource(t.app, owner);
    await t.app.webhookWorker.drain();
    const second = receiver.received[1]!;
    const later = second.headers as Record<string, string>;
    expect(later['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(new Webhook(secret).verify(second.body, later)).toBeTruthy();
    expect(() => new Webhook(webhook.secret).verify(second.body, later)).toThrow();
  });

  it('is a Discord embed without signature headers for format discord', async () => {
    await createWebhook(owner, { url: receiver.url, format: 'discord' });
    const resource = await createResource(t.app, owner);
    await t.app.webhookWorker.drain();
    const [request] = receiver.received;
    expect(request!.headers['webhook-signature']).toBeUndefined();
    const body = JSON.parse(request!.body) as { embeds: Record<string, unknown>[] };
    expect(body.embeds).toHaveLength(1);
    expect(body.embeds[0]).toMatchObject({
      title: `resource.created: ${resource.name}`,
      url: `http://api.test/resources/${resource.id}`,
    });
    expect(typeof body.embeds[0]!['timestamp']).toBe('string');
  });

  it('answers a ping with a signed webhook.ping event', async () => {
    const webhook = await createWebhook(owner, { url: receiver.url, events: ['resource.deleted'] });
    const ping = await t.app.inject({
      method: 'POST',
      url: `/webhooks/${webhook.id}/ping`,
      headers: owner.headers,
    });
    expect(ping.statusCode, ping.body).toBe(202);
    await t.app.webhookWorker.drain();
    const [request] = receiver.received;
    const event = new Webhook(webhook.secret).verify(
      request!.body,
      request!.headers as Record<string, string>,
    ) as { type: string; subject: { id: string } };
    expect(event.type).toBe('webhook.ping');
    expect(event.subject.id).toBe(webhook.id);
  });
});

describe('retries', () => {
  it('follow the schedule on the clock, jittered by at most 10 %, then FAILED', async () => {
    receiver.respond = () => ({ status: 503, body: 'x'.repeat(5000) });
    const webhook = await createWebhook(owner, { url: receiver.url });
    await createResource(t.app, owner);
    await t.app.webhookWorker.drain();
    expect(receiver.received).toHaveLength(1);
    for (const [index, delay] of RETRY_DELAYS_MS.entries()) {
      const [pending] = await deliveries(owner, webhook.id);
      expect(pending).toMatchObject({ status: 'PENDING', attempts: index + 1, lastResponseStatus: 503 });
      expect(String(pending!['lastError'])).toContain('503');
      const wait =
        Date.parse(String(pending!['nextAttemptAt'])) - Date.parse(String(pending!['lastAttemptAt']));
      expect(wait).toBeGreaterThanOrEqual(delay * 0.9);
      expect(wait).toBeLessThanOrEqual(delay * 1.1);
      // Not before it is due…
      t.clock.advance(Math.floor(delay * 0.9) - 1000);
      await t.app.webhookWorker.drain();
      expect(receiver.received).toHaveLength(index + 1);
      // …and at once when it is.
      t.clock.advance(Math.ceil(delay * 0.2) + 1000);
      await t.app.webhookWorker.drain();
      expect(receiver.received).toHaveLength(index + 2);
    }
    const [failed] = await deliveries(owner, webhook.id);
    expect(failed).toMatchObject({
      status: 'FAILED',
      attempts: RETRY_DELAYS_MS.length + 1,
      nextAttemptAt: null,
    });
    // Every attempt of one delivery has the same webhook-id.
    expect(new Set(receiver.received.map((request) => request.headers['webhook-id'])).size).toBe(1);
    // Only the first 1 KB of a response body is kept.
    const stored = await t.app.context.database.db
      .selectFrom('webhook_deliveries')
      .select('last_response_body')
      .where('webhook_id', '=', webhook.id)
      .executeTakeFirstOrThrow();
    expect(stored.last_response_body).toHaveLength(1024);
    const row = await t.app.context.database.db
      .selectFrom('webhooks')
      .select('consecutive_failures')
      .where('id', '=', webhook.id)
      .executeTakeFirstOrThrow();
    expect(row.consecutive_failures).toBe(1);
  });

  it('switch the webhook off after 50 consecutive FAILED deliveries; a success resets the streak', async () => {
    const { db } = t.app.context.database;
    receiver.respond = () => ({ status: 500 });
    const webhook = await createWebhook(owner, { url: receiver.url });
    // A success resets the streak.
    await db.updateTable('webhooks').set({ consecutive_failures: 30 }).where('id', '=', webhook.id).execute();
    receiver.respond = () => ({ status: 200 });
    await createResource(t.app, owner);
    await t.app.webhookWorker.drain();
    let row = await db
      .selectFrom('webhooks')
      .selectAll()
      .where('id', '=', webhook.id)
      .executeTakeFirstOrThrow();
    expect(row.consecutive_failures).toBe(0);
    // The 50th failed delivery in a row switches it off.
    await db.updateTable('webhooks').set({ consecutive_failures: 49 }).where('id', '=', webhook.id).execute();
    receiver.respond = () => ({ status: 500 });
    await createResource(t.app, owner);
    await t.app.webhookWorker.drain();
    for (let step = 0; step < RETRY_DELAYS_MS.length; step += 1) {
      // Past the longest delay (24 h) with its largest jitter (+10 %).
      t.clock.advance(27 * 60 * 60 * 1000);
      await t.app.webhookWorker.drain();
    }
    const got = await t.app.inject({ method: 'GET', url: `/webhooks/${webhook.id}`, headers: owner.headers });
    expect(got.json()).toMatchObject({ active: false, consecutiveFailures: 50 });
    expect(String((got.json() as { disabledReason: string }).disabledReason)).toMatch(/50 consecutive/);
    // While off, new events are not queued for it and nothing is sent.
    const before = receiver.received.length;
    await createResource(t.app, owner);
    await t.app.webhookWorker.drain();
    expect(receiver.received).toHaveLength(before);
    // Switched back on, it receives again.
    receiver.respond = () => ({ status: 200 });
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/webhooks/${webhook.id}`,
      headers: owner.headers,
      payload: { active: true },
    });
    expect(patched.json()).toMatchObject({ active: true, disabledReason: null, consecutiveFailures: 0 });
    await createResource(t.app, owner);
    await t.app.webhookWorker.drain();
    expect(receiver.received).toHaveLength(before + 1);
    row = await db.selectFrom('webhooks').selectAll().where('id', '=', webhook.id).executeTakeFirstOrThrow();
    expect(row.consecutive_failures).toBe(0);
  });

  it('a secret sealed under another SECRET is a failed attempt that asks for a rotation, not a stuck webhook', async () => {
    const webhook = await createWebhook(owner, { url: receiver.url });
    const otherBox = createSecretBox('another-secret-another-secret-another-secret', 'webhook-secrets');
    await t.app.context.database.db
      .updateTable('webhooks')
      .set({ secret_encrypted: otherBox.seal(newWebhookSecret()) })
      .where('id', '=', webhook.id)
      .execute();
    await createResource(t.app, owner);
    await t.app.webhookWorker.drain();
    expect(receiver.received).toHaveLength(0);
    const [delivery] = await deliveries(owner, webhook.id);
    expect(delivery).toMatchObject({ status: 'PENDING', attempts: 1 });
    expect(String(delivery!['lastError'])).toMatch(/SECRET_UNREADABLE/);
    // Rotating gives a readable secret again; the retry then goes out signed with it.
    const rotated = await t.app.inject({
      method: 'POST',
      url: `/webhooks/${webhook.id}/rotate-secret`,
      headers: owner.headers,
    });
    const { secret } = rotated.json() as { secret: string };
    t.clock.advance(60_000);
    await t.app.webhookWorker.drain();
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(
      new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>),
    ).toBeTruthy();
  });

  it('a 3xx is a failure and its Location is never followed', async () => {
    const elsewhere = await startReceiver();
    try {
      receiver.respond = () => ({ status: 302, headers: { location: elsewhere.url } });
      const webhook = await createWebhook(owner, { url: receiver.url });
      await createResource(t.app, owner);
      await t.app.webhookWorker.drain();
      const [delivery] = await deliveries(owner, webhook.id);
      expect(delivery).toMatchObject({ status: 'PENDING', lastResponseStatus: 302, lastError: 'HTTP 302' });
      expect(elsewhere.received).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });
});

describe('ordering and isolation', () => {
  it("delivers one webhook's events in event order while a hanging receiver times out on its own", async () => {
    const hanging = await startReceiver();
    hanging.respond = () => 'hang';
    try {
      const slow = await createWebhook(owner, { url: hanging.url });
      await createWebhook(owner, { url: receiver.url });
      const created = [];
      for (let index = 0; index < 5; index += 1) created.push(await createResource(t.app, owner));
      const outcomes = await t.app.webhookWorker.drain();
      const ids = receiver.received.map(
        (request) => (JSON.parse(request.body) as { subject: { id: string } }).subject.id,
      );
      expect(ids).toEqual(created.map((resource) => resource.id));
      const [first] = await deliveries(owner, slow.id);
      expect(outcomes.filter((outcome) => outcome.webhookId === slow.id)).toHaveLength(5);
      expect(String(first!['lastError'] ?? '')).toMatch(/TIMEOUT/);
    } finally {
      await hanging.close();
    }
  });
});

describe('the body limit', () => {
  it('sends an event larger than WEBHOOK_MAX_BODY_KB with its data cut to {truncated: true}, still signed', async () => {
    const small = await buildTestApp({
      OUTBOUND_ALLOW_PRIVATE: 'true',
      EVENT_FEED_SETTLE_MS: '0',
      WEBHOOK_MAX_BODY_KB: '1',
    });
    try {
      const user = await createUser(small.app);
      const created = await small.app.inject({
        method: 'POST',
        url: '/webhooks',
        headers: user.headers,
        payload: { url: receiver.url, events: ['*'], scope: { kind: 'USER' } },
      });
      const { secret } = created.json() as { secret: string };
      const { db } = small.app.context.database;
      const at = small.clock.now().toISOString();
      const [big, fits] = await db.transaction().execute(async (trx) => [
        await recordEvent(trx, {
          type: 'user.followed',
          at,
          actorId: null,
          subjectId: user.id,
          data: { followerId: 'x'.repeat(2000) },
          placement: { userId: user.id, subjectPublic: true },
        }),
        await recordEvent(trx, {
          type: 'user.followed',
          at,
          actorId: null,
          subjectId: user.id,
          data: { followerId: 'y' },
          placement: { userId: user.id, subjectPublic: true },
        }),
      ]);
      await small.app.webhookWorker.drain();
      const bodies = receiver.received.map(
        (request) =>
          new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as {
            id: string;
            data: unknown;
          },
      );
      expect(bodies.map((body) => [body.id, body.data])).toEqual([
        [big, { truncated: true }],
        [fits, { followerId: 'y' }],
      ]);
    } finally {
      await small.close();
    }
  });
});

describe('the settle window', () => {
  it('fans out only events older than EVENT_FEED_SETTLE_MS, so a late commit is not overtaken', async () => {
    const settled = await buildTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true', EVENT_FEED_SETTLE_MS: '60000' });
    try {
      const user = await createUser(settled.app);
      const created = await settled.app.inject({
        method: 'POST',
        url: '/webhooks',
        headers: user.headers,
        payload: { url: receiver.url, events: ['*'], scope: { kind: 'USER' } },
      });
      expect(created.statusCode, created.body).toBe(201);
      await createResource(settled.app, user);
      await settled.app.webhookWorker.drain();
      expect(receiver.received).toHaveLength(0);
      // The same event, its id two minutes old (ids carry wall-clock time): now it goes out.
      const { db } = settled.app.context.database;
      const event = await db.selectFrom('events').select('id').executeTakeFirstOrThrow();
      const aged = uuidV7Floor(Date.now() - 120_000).slice(0, 24) + event.id.slice(24);
      await db.updateTable('events').set({ id: aged }).where('id', '=', event.id).execute();
      await settled.app.webhookWorker.drain();
      expect(receiver.received.map((request) => request.headers['webhook-id'])).toEqual([aged]);
    } finally {
      await settled.close();
    }
  });
});

describe('what a delivery may carry', () => {
  it("only events the webhook's creator can see at delivery time", async () => {
    const maintainer = await createUser(t.app);
    const resource = await createResource(t.app, owner);
    await addContributor(t.app, owner, resource.id, maintainer, 'MAINTAINER');
    await createWebhook(maintainer, { url: receiver.url, scope: { kind: 'RESOURCE', id: resource.id } });
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/resources/${resource.id}`,
      headers: owner.headers,
      payload: { name: 'Renamed while pending' },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    // Removed before the delivery goes out: the pending resource is no longer theirs to see.
    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/resources/${resource.id}/contributors/${maintainer.id}`,
      headers: owner.headers,
    });
    expect(removed.statusCode, removed.body).toBe(200);
    const outcomes = await t.app.webhookWorker.drain();
    expect(outcomes.some((outcome) => outcome.result === 'hidden')).toBe(true);
    expect(
      receiver.received.map((request) => (JSON.parse(request.body) as { type: string }).type),
    ).not.toContain('resource.updated');
    // Once the resource is public, its events reach them again.
    await moderate(t.app, moderator, resource.id, 'APPROVE');
    await t.app.webhookWorker.drain();
    expect(receiver.received.map((request) => (JSON.parse(request.body) as { type: string }).type)).toContain(
      'resource.moderated',
    );
  });

  it('goes through the outbound guard: a private address is refused at delivery time', async () => {
    const guarded = await buildTestApp({ WEBHOOK_TIMEOUT_MS: '400', EVENT_FEED_SETTLE_MS: '0' });
    try {
      const user = await createUser(guarded.app);
      const { db } = guarded.app.context.database;
      // As if DNS had changed since the URL was checked: the stored webhook now points at loopback.
      const now = guarded.clock.now().toISOString();
      await db
        .insertInto('webhooks')
        .values({
          id: newId(),
          created_by: user.id,
          scope_kind: 'USER',
          scope_id: user.id,
          url: receiver.url,
          events: '["*"]',
          description: null,
          format: 'standard',
          active: true,
          disabled_reason: null,
          secret_encrypted: createSecretBox(guarded.config.secret, 'webhook-secrets').seal(
            newWebhookSecret(),
          ),
          previous_secret_encrypted: null,
          previous_secret_expires_at: null,
          consecutive_failures: 0,
          busy_until: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await createResource(guarded.app, user);
      await guarded.app.webhookWorker.drain();
      expect(receiver.received).toHaveLength(0);
      const delivery = await db.selectFrom('webhook_deliveries').selectAll().executeTakeFirstOrThrow();
      expect(delivery).toMatchObject({ status: 'PENDING', attempts: 1 });
      expect(delivery.last_error).toMatch(/TARGET_REFUSED/);
    } finally {
      await guarded.close();
    }
  });
});
