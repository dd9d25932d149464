// Webhook management (spec/extensions.md §1.2): who may create and manage a webhook in each scope, validation,
// the per-scope limit, the secret shown once and rotated, pings and redeliveries in the delivery log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/core/events/secret-box.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import { loadOpenApi } from '../helpers/openapi.js';
import { createResourceCast, resourceFor } from '../resources/helpers.js';
import type { ResourceCast } from '../resources/helpers.js';
import { createApprovedServer, createServer } from '../servers/helpers.js';

interface WebhookBody {
  id: string;
  url: string;
  events: string[];
  scope: { kind: string; id: string | null };
  description: string | null;
  format: string;
  active: boolean;
  disabledReason: string | null;
  consecutiveFailures: number;
  createdBy: { id: string; username: string };
  createdAt: string;
  updatedAt: string;
  secret?: string;
}

interface DeliveryBody {
  id: string;
  eventId: string;
  eventType: string;
  status: string;
  attempts: number;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  lastResponseStatus: number | null;
  lastError: string | null;
  durationMs: number | null;
  redeliveryOf: string | null;
  createdAt: string;
}

const URL_OK = 'http://127.0.0.1:9/hook';
// The sender is not under test here: deliveries stay as the routes queue them.
const ENV = { OUTBOUND_ALLOW_PRIVATE: 'true', WEBHOOK_WORKER: 'false' };

let t: TestApp;
let cast: ResourceCast;
let superAdmin: TestUser;

beforeAll(async () => {
  t = await buildTestApp(ENV);
  cast = await createResourceCast(t.app);
  superAdmin = await createUser(t.app, { role: 'SUPER_ADMIN' });
});
afterAll(async () => t?.close());

function post(as: TestUser, payload: Record<string, unknown>, app = t) {
  return app.app.inject({ method: 'POST', url: '/webhooks', headers: as.headers, payload });
}

async function createWebhook(as: TestUser, payload: Record<string, unknown> = {}): Promise<WebhookBody> {
  const response = await post(as, {
    url: URL_OK,
    events: ['resource.created'],
    scope: { kind: 'USER' },
    ...payload,
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as WebhookBody;
}

function call(as: TestUser, method: 'GET' | 'PATCH' | 'POST' | 'DELETE', url: string, payload?: object) {
  return t.app.inject({ method, url, headers: as.headers, ...(payload !== undefined ? { payload } : {}) });
}

async function deliveries(as: TestUser, webhookId: string, query = ''): Promise<DeliveryBody[]> {
  const response = await call(as, 'GET', `/webhooks/${webhookId}/deliveries${query}`);
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json() as { deliveries: DeliveryBody[]; total: number };
  expect(body.total).toBe(body.deliveries.length);
  return body.deliveries;
}

const storedRow = (id: string) =>
  t.app.context.database.db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('creating a webhook', () => {
  it('answers 201 with the webhook and its secret; the stored secret is sealed, not the plaintext', async () => {
    const user = await createUser(t.app);
    const response = await post(user, {
      url: URL_OK,
      events: ['resource.created', 'version.approved', 'resource.created'],
      scope: { kind: 'USER' },
      description: '  CI notifications  ',
      format: 'discord',
    });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json() as WebhookBody;
    const now = t.clock.now().toISOString();
    expect(body).toEqual({
      id: expect.any(String) as string,
      url: URL_OK,
      events: ['resource.created', 'version.approved'],
      scope: { kind: 'USER', id: user.id },
      description: 'CI notifications',
      format: 'discord',
      active: true,
      disabledReason: null,
      consecutiveFailures: 0,
      createdBy: { id: user.id, username: user.username },
      createdAt: now,
      updatedAt: now,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) as string,
    });
    const row = await storedRow(body.id);
    expect(row.secret_encrypted).not.toContain(body.secret!);
    expect(createSecretBox(t.config.secret, 'webhook-secrets').open(row.secret_encrypted)).toBe(body.secret);
    expect(row.created_by).toBe(user.id);
  });

  it('defaults to the standard format and accepts ["*"]; active: false creates it paused', async () => {
    const user = await createUser(t.app);
    const all = await createWebhook(user, { events: ['*'], scope: { kind: 'USER', id: user.id } });
    expect([all.format, all.events, all.active, all.scope.id]).toEqual(['standard', ['*'], true, user.id]);
    const paused = await createWebhook(user, { active: false });
    expect(paused.active).toBe(false);
  });

  it('refuses bad events, "*" mixed with types, a long description or URL, an unknown scope kind (400)', async () => {
    const user = await createUser(t.app);
    const base = { url: URL_OK, events: ['resource.created'], scope: { kind: 'USER' } };
    const cases: Array<Record<string, unknown>> = [
      { events: [] },
      { events: ['resource.exploded'] },
      { events: ['webhook.ping'] },
      { events: ['*', 'resource.created'] },
      { events: Array.from({ length: 61 }, () => 'resource.created') },
      { description: 'x'.repeat(501) },
      { url: `https://example.com/${'a'.repeat(2048)}` },
      { scope: { kind: 'GALAXY' } },
      { scope: {} },
      { format: 'slack' },
    ];
    for (const change of cases) {
      expectError(await post(user, { ...base, ...change }), 400);
    }
    expect(
      await t.app.context.database.db
        .selectFrom('webhooks')
        .select('id')
        .where('created_by', '=', user.id)
        .execute(),
    ).toEqual([]);
  });

  it('refuses a URL that is not absolute (400 OUTBOUND_TARGET_REFUSED)', async () => {
    const user = await createUser(t.app);
    const body = expectError(
      await post(user, { url: '/relative/hook', events: ['*'], scope: { kind: 'USER' } }),
      400,
      'OUTBOUND_TARGET_REFUSED',
    );
    expect(body.details).toEqual({ reason: 'not-a-url' });
  });

  it('counts at most 20 webhooks per scope (409 LIMIT_REACHED); other scopes are unaffected', async () => {
    const user = await createUser(t.app);
    const created: WebhookBody[] = [];
    for (let index = 0; index < 20; index += 1) created.push(await createWebhook(user));
    const refused = expectError(
      await post(user, { url: URL_OK, events: ['*'], scope: { kind: 'USER' } }),
      409,
      'LIMIT_REACHED',
    );
    expect(refused.message).toMatch(/at most 20 webhooks/);
    expect(refused.details).toEqual({ limit: 20 });
    // Another scope has its own 20.
    const team = await t.app.inject({
      method: 'POST',
      url: '/teams',
      headers: user.headers,
      payload: { name: 'Limit team', slug: `limit-team-${process.pid}` },
    });
    expect(team.statusCode, team.body).toBe(201);
    await createWebhook(user, { scope: { kind: 'TEAM', id: (team.json() as { id: string }).id } });
    // Deleting one makes room again.
    expect((await call(user, 'DELETE', `/webhooks/${created[0]!.id}`)).statusCode).toBe(204);
    await createWebhook(user);
  });
  it('holds the limit under concurrent creations in one scope', async () => {
    const user = await createUser(t.app);
    const answers = await Promise.all(
      Array.from({ length: 25 }, () => post(user, { url: URL_OK, events: ['*'], scope: { kind: 'USER' } })),
    );
    expect(answers.filter((answer) => answer.statusCode === 201)).toHaveLength(20);
    for (const answer of answers.filter((a) => a.statusCode !== 201))
      expectError(answer, 409, 'LIMIT_REACHED');
    const rows = await t.app.context.database.db
      .selectFrom('webhooks')
      .select('id')
      .where('scope_kind', '=', 'USER')
      .where('scope_id', '=', user.id)
      .execute();
    expect(rows).toHaveLength(20);
  });
});

describe('outbound target rules without OUTBOUND_ALLOW_PRIVATE', () => {
  let strict: TestApp;
  let user: TestUser;
  beforeAll(async () => {
    strict = await buildTestApp({ WEBHOOK_WORKER: 'false' });
    user = await createUser(strict.app);
  });
  afterAll(async () => strict?.close());

  it.each([
    ['http://hooks.example.com/in', 'scheme'],
    ['https://127.0.0.1/hook', 'loopback'],
    ['https://10.1.2.3/hook', 'private'],
    ['https://[::1]/hook', 'loopback'],
    ['https://localhost/hook', 'loopback'],
  ])('refuses %s (400 OUTBOUND_TARGET_REFUSED, %s) on create and on update', async (url, reason) => {
    const created = expectError(
      await post(user, { url, events: ['*'], scope: { kind: 'USER' } }, strict),
      400,
      'OUTBOUND_TARGET_REFUSED',
    );
    expect(created.details).toEqual({ reason });
    // A webhook made while the rule was lifted, then edited under it.
    const id = crypto.randomUUID();
    const now = strict.clock.now().toISOString();
    await strict.app.context.database.db
      .insertInto('webhooks')
      .values({
        id,
        created_by: user.id,
        scope_kind: 'USER',
        scope_id: user.id,
        url: 'https://hooks.example.com/in',
        events: '["*"]',
        description: null,
        format: 'standard',
        active: true,
        disabled_reason: null,
        secret_encrypted: 'sealed',
        previous_secret_encrypted: null,
        previous_secret_expires_at: null,
        consecutive_failures: 0,
        busy_until: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const patched = await strict.app.inject({
      method: 'PATCH',
      url: `/webhooks/${id}`,
      headers: user.headers,
      payload: { url },
    });
    expect(expectError(patched, 400, 'OUTBOUND_TARGET_REFUSED').details).toEqual({ reason });
    const row = await strict.app.context.database.db
      .selectFrom('webhooks')
      .select('url')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.url).toBe('https://hooks.example.com/in');
  });
});

describe('who may create and manage a webhook, scope by scope', () => {
  /** Creates as `creator`, then checks who reaches it on GET (200) and who does not (404). */
  async function expectManagers(webhookId: string, managers: TestUser[], others: TestUser[]) {
    for (const user of managers) {
      const response = await call(user, 'GET', `/webhooks/${webhookId}`);
      expect(response.statusCode, `${user.username}: ${response.body}`).toBe(200);
      const listed = await call(user, 'GET', '/webhooks?limit=100');
      expect((listed.json() as { webhooks: WebhookBody[] }).webhooks.map((w) => w.id)).toContain(webhookId);
    }
    for (const user of others) {
      expectError(await call(user, 'GET', `/webhooks/${webhookId}`), 404, 'NOT_FOUND');
      const listed = await call(user, 'GET', '/webhooks?limit=100');
      expect((listed.json() as { webhooks: WebhookBody[] }).webhooks.map((w) => w.id)).not.toContain(
        webhookId,
      );
    }
  }

  it("USER: yourself only (another user's id is 403); admins may create for and manage any user", async () => {
    const [user, other] = [await createUser(t.app), await createUser(t.app)];
    expectError(await post(user, { url: URL_OK, events: ['*'], scope: { kind: 'USER', id: other.id } }), 403);
    const own = await createWebhook(user);
    await expectManagers(own.id, [user, cast.admin, superAdmin], [other, cast.moderator]);
    const forOther = await createWebhook(cast.admin, { scope: { kind: 'USER', id: other.id } });
    expect(forOther.scope).toEqual({ kind: 'USER', id: other.id });
    expect(forOther.createdBy.id).toBe(cast.admin.id);
    await expectManagers(forOther.id, [other, cast.admin], [user]);
    expectError(
      await post(cast.admin, {
        url: URL_OK,
        events: ['*'],
        scope: { kind: 'USER', id: crypto.randomUUID() },
      }),
      404,
    );
  });

  it('TEAM: the team OWNER and ADMIN (MODERATOR and MEMBER 403, an unknown team 404)', async () => {
    const scope = { kind: 'TEAM', id: cast.team.id };
    for (const user of [cast.teamMember, cast.teamModerator, cast.stranger]) {
      expectError(await post(user, { url: URL_OK, events: ['*'], scope }), 403, 'FORBIDDEN');
    }
    expectError(
      await post(cast.teamOwner, {
        url: URL_OK,
        events: ['*'],
        scope: { kind: 'TEAM', id: crypto.randomUUID() },
      }),
      404,
    );
    expectError(await post(cast.teamOwner, { url: URL_OK, events: ['*'], scope: { kind: 'TEAM' } }), 400);
    const byAdmin = await createWebhook(cast.teamAdmin, { scope });
    await createWebhook(cast.teamOwner, { scope });
    await expectManagers(
      byAdmin.id,
      [cast.teamOwner, cast.teamAdmin, cast.admin],
      [cast.teamModerator, cast.teamMember, cast.stranger],
    );
  });

  it('RESOURCE: the owner side and MAINTAINERs; a CONTRIBUTOR is 403, an invisible resource 404', async () => {
    const pending = await resourceFor(t.app, cast, 'USER', 'PENDING');
    const scope = { kind: 'RESOURCE', id: pending.id };
    expectError(await post(cast.stranger, { url: URL_OK, events: ['*'], scope }), 404);
    expectError(await post(cast.contributor, { url: URL_OK, events: ['*'], scope }), 403);
    const byMaintainer = await createWebhook(cast.maintainer, { scope });
    await createWebhook(cast.owner, { scope });
    await expectManagers(
      byMaintainer.id,
      [cast.owner, cast.maintainer, cast.admin],
      [cast.contributor, cast.stranger, cast.moderator],
    );

    const approved = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    expectError(
      await post(cast.stranger, { url: URL_OK, events: ['*'], scope: { kind: 'RESOURCE', id: approved.id } }),
      403,
    );
    expectError(
      await post(cast.owner, {
        url: URL_OK,
        events: ['*'],
        scope: { kind: 'RESOURCE', id: crypto.randomUUID() },
      }),
      404,
    );

    // A team resource: every member of the owning team is on its owner side.
    const teamResource = await resourceFor(t.app, cast, 'TEAM', 'PENDING');
    const byMember = await createWebhook(cast.teamMember, {
      scope: { kind: 'RESOURCE', id: teamResource.id },
    });
    await expectManagers(
      byMember.id,
      [cast.teamOwner, cast.teamMember, cast.maintainer],
      [cast.contributor, cast.owner, cast.stranger],
    );
  });

  it('SERVER: the user owner or any member of the owning team; others 403, an invisible server 404', async () => {
    const pending = await createServer(t.app, cast.owner);
    expectError(
      await post(cast.stranger, { url: URL_OK, events: ['*'], scope: { kind: 'SERVER', id: pending.id } }),
      404,
    );
    const approved = await createApprovedServer(t.app, cast.owner, cast.moderator);
    expectError(
      await post(cast.stranger, { url: URL_OK, events: ['*'], scope: { kind: 'SERVER', id: approved.id } }),
      403,
    );
    const own = await createWebhook(cast.owner, { scope: { kind: 'SERVER', id: pending.id } });
    await expectManagers(own.id, [cast.owner, cast.admin], [cast.stranger, cast.moderator]);

    const teamServer = await createServer(t.app, cast.teamOwner, {
      ownerType: 'TEAM',
      ownerId: cast.team.id,
    });
    const byMember = await createWebhook(cast.teamMember, { scope: { kind: 'SERVER', id: teamServer.id } });
    await expectManagers(byMember.id, [cast.teamOwner, cast.teamModerator, cast.teamMember], [cast.owner]);
  });

  it('PLATFORM: ADMIN and SUPER_ADMIN only, and no id (400)', async () => {
    for (const user of [cast.owner, cast.moderator]) {
      expectError(await post(user, { url: URL_OK, events: ['*'], scope: { kind: 'PLATFORM' } }), 403);
    }
    expectError(
      await post(cast.admin, { url: URL_OK, events: ['*'], scope: { kind: 'PLATFORM', id: cast.admin.id } }),
      400,
    );
    const platform = await createWebhook(cast.admin, { scope: { kind: 'PLATFORM' } });
    expect(platform.scope).toEqual({ kind: 'PLATFORM', id: null });
    await expectManagers(platform.id, [cast.admin, superAdmin], [cast.moderator, cast.owner]);
  });

  it("answers 404 on every :webhookId route for someone else's webhook, and changes nothing", async () => {
    const owner = await createUser(t.app);
    const webhook = await createWebhook(owner);
    const ping = await call(owner, 'POST', `/webhooks/${webhook.id}/ping`);
    const { deliveryId } = ping.json() as { deliveryId: string };
    const before = await storedRow(webhook.id);
    const routes: Array<['GET' | 'PATCH' | 'POST' | 'DELETE', string, object?]> = [
      ['GET', `/webhooks/${webhook.id}`],
      ['PATCH', `/webhooks/${webhook.id}`, { description: 'mine now' }],
      ['DELETE', `/webhooks/${webhook.id}`],
      ['POST', `/webhooks/${webhook.id}/rotate-secret`],
      ['POST', `/webhooks/${webhook.id}/ping`],
      ['GET', `/webhooks/${webhook.id}/deliveries`],
      ['POST', `/webhooks/${webhook.id}/deliveries/${deliveryId}/redeliver`],
    ];
    for (const [method, url, payload] of routes) {
      const body = expectError(await call(cast.stranger, method, url, payload), 404, 'NOT_FOUND');
      expect(body.message).toBe('Webhook not found');
      expectError(await t.app.inject({ method, url, ...(payload ? { payload } : {}) }), 401);
    }
    expect(await storedRow(webhook.id)).toEqual(before);
    expect(await deliveries(owner, webhook.id)).toHaveLength(1);
  });
});

describe('reading, listing, editing and deleting', () => {
  it('lists the webhooks you manage newest first, paged, filtered by scope; an unmanaged scope is empty', async () => {
    const user = await createUser(t.app);
    const team = cast.team;
    const first = await createWebhook(user);
    t.clock.advance(1000);
    const second = await createWebhook(user);
    t.clock.advance(1000);
    const third = await createWebhook(user);
    const list = async (query: string, as: TestUser = user) => {
      const response = await call(as, 'GET', `/webhooks${query}`);
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as { webhooks: WebhookBody[]; total: number; meta: Record<string, number> };
    };
    const all = await list('');
    expect(all.webhooks.map((w) => w.id)).toEqual([third.id, second.id, first.id]);
    expect(all.total).toBe(3);
    expect(all.meta).toEqual({ total: 3, limit: 20, offset: 0 });
    const page = await list('?limit=1&offset=1');
    expect([page.webhooks.map((w) => w.id), page.total]).toEqual([[second.id], 3]);
    expect((await list(`?scopeKind=USER&scopeId=${user.id}`)).total).toBe(3);
    expect(await list('?scopeKind=TEAM')).toMatchObject({ webhooks: [], total: 0 });
    expect(await list(`?scopeKind=TEAM&scopeId=${team.id}`)).toMatchObject({ webhooks: [], total: 0 });
    // Someone else's scope is an empty list, not an error.
    expect(await list(`?scopeKind=USER&scopeId=${user.id}`, cast.stranger)).toMatchObject({
      webhooks: [],
      total: 0,
    });
    expectError(await call(user, 'GET', '/webhooks?limit=101'), 400);
    expectError(await call(user, 'GET', '/webhooks?scopeKind=GALAXY'), 400);
    expectError(await t.app.inject({ method: 'GET', url: '/webhooks' }), 401);
  });

  it('PATCH edits url, events, description, format and active; active: true clears a disable', async () => {
    const user = await createUser(t.app);
    const webhook = await createWebhook(user, { description: 'old' });
    t.clock.advance(5000);
    const response = await call(user, 'PATCH', `/webhooks/${webhook.id}`, {
      url: 'http://127.0.0.1:10/other',
      events: ['server.voted', 'server.voted', 'team.member_added'],
      description: '',
      format: 'discord',
      active: false,
    });
    expect(response.statusCode, response.body).toBe(200);
    const updated = response.json() as WebhookBody;
    expect(updated).toEqual({
      ...webhook,
      secret: undefined,
      url: 'http://127.0.0.1:10/other',
      events: ['server.voted', 'team.member_added'],
      description: null,
      format: 'discord',
      active: false,
      updatedAt: t.clock.now().toISOString(),
    });
    expect(await call(user, 'GET', `/webhooks/${webhook.id}`).then((r) => r.json() as WebhookBody)).toEqual(
      updated,
    );
    expectError(await call(user, 'PATCH', `/webhooks/${webhook.id}`, { events: ['*', 'server.voted'] }), 400);
    // The scope is not editable: the field is dropped like any unknown one.
    const rescoped = await call(user, 'PATCH', `/webhooks/${webhook.id}`, { scope: { kind: 'PLATFORM' } });
    expect((rescoped.json() as WebhookBody).scope).toEqual({ kind: 'USER', id: user.id });

    // The sender turned it off after too many failures; turning it on is a fresh start.
    await t.app.context.database.db
      .updateTable('webhooks')
      .set({ active: false, disabled_reason: '50 consecutive failed deliveries', consecutive_failures: 50 })
      .where('id', '=', webhook.id)
      .execute();
    const disabled = (await call(user, 'GET', `/webhooks/${webhook.id}`)).json() as WebhookBody;
    expect([disabled.active, disabled.disabledReason, disabled.consecutiveFailures]).toEqual([
      false,
      '50 consecutive failed deliveries',
      50,
    ]);
    const enabled = (
      await call(user, 'PATCH', `/webhooks/${webhook.id}`, { active: true })
    ).json() as WebhookBody;
    expect([enabled.active, enabled.disabledReason, enabled.consecutiveFailures]).toEqual([true, null, 0]);
    const row = await storedRow(webhook.id);
    expect([Boolean(row.active), row.disabled_reason, row.consecutive_failures]).toEqual([true, null, 0]);
  });

  it('shows the secret once: never in get, list, patch or delivery answers', async () => {
    const user = await createUser(t.app);
    const webhook = await createWebhook(user);
    const secret = webhook.secret!;
    const answers = [
      await call(user, 'GET', `/webhooks/${webhook.id}`),
      await call(user, 'GET', '/webhooks'),
      await call(user, 'PATCH', `/webhooks/${webhook.id}`, { description: 'x' }),
      await call(user, 'POST', `/webhooks/${webhook.id}/ping`),
      await call(user, 'GET', `/webhooks/${webhook.id}/deliveries`),
    ];
    for (const answer of answers) {
      expect(answer.statusCode, answer.body).toBeLessThan(300);
      expect(answer.body).not.toContain(secret);
      expect(answer.body).not.toContain('"secret"');
      expect(answer.body).not.toContain('whsec_');
    }
  });

  it('DELETE answers 204 and removes the webhook with its deliveries', async () => {
    const user = await createUser(t.app);
    const webhook = await createWebhook(user);
    await call(user, 'POST', `/webhooks/${webhook.id}/ping`);
    const { db } = t.app.context.database;
    const countDeliveries = async () =>
      (await db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', webhook.id).execute())
        .length;
    expect(await countDeliveries()).toBe(1);
    const response = await call(user, 'DELETE', `/webhooks/${webhook.id}`);
    expect(response.statusCode, response.body).toBe(204);
    expect(response.body).toBe('');
    expect(await countDeliveries()).toBe(0);
    expectError(await call(user, 'GET', `/webhooks/${webhook.id}`), 404);
    expectError(await call(user, 'DELETE', `/webhooks/${webhook.id}`), 404);
  });
});

describe('secret rotation', () => {
  it('returns a new secret; the old one becomes the previous one for 24 hours; a second rotation replaces it', async () => {
    const box = createSecretBox(t.config.secret, 'webhook-secrets');
    const user = await createUser(t.app);
    const webhook = await createWebhook(user);
    t.clock.advance(60_000);
    const first = await call(user, 'POST', `/webhooks/${webhook.id}/rotate-secret`);
    expect(first.statusCode, first.body).toBe(200);
    const { secret: rotated } = first.json() as { secret: string };
    expect(rotated).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated).not.toBe(webhook.secret);
    let row = await storedRow(webhook.id);
    expect(box.open(row.secret_encrypted)).toBe(rotated);
    expect(box.open(row.previous_secret_encrypted!)).toBe(webhook.secret);
    expect(new Date(row.previous_secret_expires_at!).getTime()).toBe(t.clock.now().getTime() + 24 * 3600_000);

    t.clock.advance(3600_000);
    const second = (await call(user, 'POST', `/webhooks/${webhook.id}/rotate-secret`)).json() as {
      secret: string;
    };
    row = await storedRow(webhook.id);
    expect(box.open(row.secret_encrypted)).toBe(second.secret);
    expect(box.open(row.previous_secret_encrypted!)).toBe(rotated);
    expect(new Date(row.previous_secret_expires_at!).getTime()).toBe(t.clock.now().getTime() + 24 * 3600_000);
    // Never shown again elsewhere.
    expect((await call(user, 'GET', `/webhooks/${webhook.id}`)).body).not.toContain(second.secret);
  });
});

describe('pings, the delivery log and redelivery', () => {
  it('ping queues a webhook.ping event for this webhook alone, already dispatched, visible as PENDING', async () => {
    const user = await createUser(t.app);
    const webhook = await createWebhook(user);
    const other = await createWebhook(user, { events: ['*'] });
    t.clock.advance(1000);
    const response = await call(user, 'POST', `/webhooks/${webhook.id}/ping`);
    expect(response.statusCode, response.body).toBe(202);
    const { deliveryId } = response.json() as { deliveryId: string };
    const now = t.clock.now().toISOString();
    const [delivery] = await deliveries(user, webhook.id);
    expect(delivery).toEqual({
      id: deliveryId,
      eventId: expect.any(String) as string,
      eventType: 'webhook.ping',
      status: 'PENDING',
      attempts: 0,
      lastAttemptAt: null,
      nextAttemptAt: now,
      lastResponseStatus: null,
      lastError: null,
      durationMs: null,
      redeliveryOf: null,
      createdAt: now,
    });
    const event = await t.app.context.database.db
      .selectFrom('events')
      .selectAll()
      .where('id', '=', delivery!.eventId)
      .executeTakeFirstOrThrow();
    expect(event).toMatchObject({
      type: 'webhook.ping',
      subject_kind: 'webhook',
      subject_id: webhook.id,
      actor_id: user.id,
      audience: 'NONE',
      dispatched_at: now,
    });
    expect(JSON.parse(event.data)).toEqual({ webhookId: webhook.id });
    expect(await deliveries(user, other.id)).toEqual([]);
  });

  it('ping and redeliver are 409 WEBHOOK_INACTIVE while the webhook is inactive', async () => {
    const user = await createUser(t.app);
    const webhook = await createWebhook(user);
    const { deliveryId } = (await call(user, 'POST', `/webhooks/${webhook.id}/ping`)).json() as {
      deliveryId: string;
    };
    await call(user, 'PATCH', `/webhooks/${webhook.id}`, { active: false });
    expectError(await call(user, 'POST', `/webhooks/${webhook.id}/ping`), 409, 'WEBHOOK_INACTIVE');
    expectError(
      await call(user, 'POST', `/webhooks/${webhook.id}/deliveries/${deliveryId}/redeliver`),
      409,
      'WEBHOOK_INACTIVE',
    );
    expect(await deliveries(user, webhook.id)).toHaveLength(1);
  });

  it('redeliver queues a new delivery of the same event with redeliveryOf; the log lists newest first', async () => {
    const user = await createUser(t.app);
    const webhook = await createWebhook(user);
    const { deliveryId } = (await call(user, 'POST', `/webhooks/${webhook.id}/ping`)).json() as {
      deliveryId: string;
    };
    await t.app.context.database.db
      .updateTable('webhook_deliveries')
      .set({ status: 'FAILED', attempts: 7, last_error: 'connection refused', next_attempt_at: null })
      .where('id', '=', deliveryId)
      .execute();
    t.clock.advance(1000);
    const response = await call(user, 'POST', `/webhooks/${webhook.id}/deliveries/${deliveryId}/redeliver`);
    expect(response.statusCode, response.body).toBe(202);
    const { deliveryId: again } = response.json() as { deliveryId: string };
    expect(again).not.toBe(deliveryId);
    const log = await deliveries(user, webhook.id);
    expect(log.map((d) => [d.id, d.status, d.redeliveryOf])).toEqual([
      [again, 'PENDING', deliveryId],
      [deliveryId, 'FAILED', null],
    ]);
    expect(log[0]!.eventId).toBe(log[1]!.eventId);
    expect(log[0]!.attempts).toBe(0);
    expect(log[1]!.lastError).toBe('connection refused');
    expect((await deliveries(user, webhook.id, '?status=FAILED')).map((d) => d.id)).toEqual([deliveryId]);
    expect((await deliveries(user, webhook.id, '?status=PENDING')).map((d) => d.id)).toEqual([again]);
    expect(await deliveries(user, webhook.id, '?status=SUCCEEDED')).toEqual([]);
    const paged = await call(user, 'GET', `/webhooks/${webhook.id}/deliveries?limit=1&offset=1`);
    expect(paged.json()).toMatchObject({ total: 2, meta: { total: 2, limit: 1, offset: 1 } });
    expect((paged.json() as { deliveries: DeliveryBody[] }).deliveries.map((d) => d.id)).toEqual([
      deliveryId,
    ]);
    expectError(await call(user, 'GET', `/webhooks/${webhook.id}/deliveries?status=LOST`), 400);
  });

  it('a delivery of another webhook (even one you manage) is 404 Delivery', async () => {
    const user = await createUser(t.app);
    const [first, second] = [await createWebhook(user), await createWebhook(user)];
    const { deliveryId } = (await call(user, 'POST', `/webhooks/${second.id}/ping`)).json() as {
      deliveryId: string;
    };
    const body = expectError(
      await call(user, 'POST', `/webhooks/${first.id}/deliveries/${deliveryId}/redeliver`),
      404,
      'NOT_FOUND',
    );
    expect(body.message).toBe('Delivery not found');
    expectError(
      await call(user, 'POST', `/webhooks/${first.id}/deliveries/${crypto.randomUUID()}/redeliver`),
      404,
    );
    expect(await deliveries(user, first.id)).toEqual([]);
  });
});

describe('OpenAPI document', () => {
  it.each([
    ['post', '/webhooks', 'createWebhook'],
    ['get', '/webhooks', 'listWebhooks'],
    ['get', '/webhooks/{webhookId}', 'getWebhook'],
    ['patch', '/webhooks/{webhookId}', 'updateWebhook'],
    ['delete', '/webhooks/{webhookId}', 'deleteWebhook'],
    ['post', '/webhooks/{webhookId}/rotate-secret', 'rotateWebhookSecret'],
    ['post', '/webhooks/{webhookId}/ping', 'pingWebhook'],
    ['get', '/webhooks/{webhookId}/deliveries', 'listWebhookDeliveries'],
    ['post', '/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', 'redeliverWebhookDelivery'],
  ])('%s %s is %s, tagged webhooks, secured, with a 401', async (method, path, operationId) => {
    const document = await loadOpenApi(t.app);
    const operation = document.paths[path]?.[method];
    expect(operation, `${method} ${path}`).toBeDefined();
    expect(operation!.operationId).toBe(operationId);
    expect(operation!.tags).toEqual(['webhooks']);
    expect(operation!.summary?.length).toBeGreaterThan(0);
    expect(operation!.security).toBeDefined();
    expect(Object.keys(operation!.responses ?? {})).toContain('401');
  });
});
