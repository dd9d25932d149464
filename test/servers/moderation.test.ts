// Server moderation: every action from every status, reasons and notes, the history, the public counters and
// ranks that follow, who may moderate, and the moderation queue.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import {
  catalogs,
  createServer,
  expectServerInvariants,
  getServer,
  moderate,
  recomputeRanks,
  reportStatus,
} from './helpers.js';
import type { CatalogRef, ServerBody } from './helpers.js';

type Status = ServerBody['status'];
type Action = 'approve' | 'reject' | 'suspend';

let t: TestApp;
let p: Personas;
let seeded: { tags: CatalogRef[]; categories: CatalogRef[] };

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
  seeded = await catalogs(t.app);
});
afterAll(async () => t.close());
afterEach(async () => expectServerInvariants(t.app));

/** A fresh server brought into `status` through the API. */
async function serverIn(status: Status, body: Record<string, unknown> = {}): Promise<ServerBody> {
  const server = await createServer(t.app, p.user, body);
  if (status === 'APPROVED' || status === 'SUSPENDED')
    await moderate(t.app, p.moderator, server.id, 'approve');
  if (status === 'SUSPENDED') await moderate(t.app, p.moderator, server.id, 'suspend');
  if (status === 'REJECTED') await moderate(t.app, p.moderator, server.id, 'reject');
  return getServer(t.app, server.slug, p.user);
}

function act(action: Action, serverId: string, by: TestUser | null, payload?: Record<string, unknown>) {
  return t.app.inject({
    method: 'POST',
    url: `/servers/moderation/${serverId}/${action}`,
    ...(by ? { headers: by.headers } : {}),
    ...(payload !== undefined ? { payload } : action === 'approve' ? {} : { payload: { reason: 'Rule 3' } }),
  });
}

async function history(serverId: string) {
  const response = await t.app.inject({
    method: 'GET',
    url: `/servers/moderation/${serverId}/history`,
    headers: p.moderator.headers,
  });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { history: Array<Record<string, unknown>> }).history;
}

const TABLE: Array<[Action, Status, Status | 409]> = [
  ['approve', 'PENDING', 'APPROVED'],
  ['approve', 'REJECTED', 'APPROVED'],
  ['approve', 'SUSPENDED', 'APPROVED'],
  ['approve', 'APPROVED', 409],
  ['reject', 'PENDING', 'REJECTED'],
  ['reject', 'APPROVED', 'REJECTED'],
  ['reject', 'REJECTED', 409],
  ['reject', 'SUSPENDED', 409],
  ['suspend', 'PENDING', 'SUSPENDED'],
  ['suspend', 'APPROVED', 'SUSPENDED'],
  ['suspend', 'REJECTED', 409],
  ['suspend', 'SUSPENDED', 409],
];

describe('transitions', () => {
  it.each(TABLE)('%s a %s server → %s', async (action, from, expected) => {
    const server = await serverIn(from);
    const before = (await history(server.id)).length;
    const response = await act(action, server.id, p.moderator);
    if (expected === 409) {
      expectError(response, 409, 'INVALID_STATUS_TRANSITION');
      expect((await getServer(t.app, server.slug, p.user)).status).toBe(from);
      expect(await history(server.id)).toHaveLength(before);
      return;
    }
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ id: server.id, status: expected });
    const events = await history(server.id);
    expect(events).toHaveLength(before + 1);
    expect(events.at(-1)).toMatchObject({
      action: action.toUpperCase(),
      fromStatus: from,
      toStatus: expected,
      moderator: { id: p.moderator.id, username: p.moderator.username },
      createdAt: t.clock.now().toISOString(),
    });
  });
});

describe('reasons, notes and history', () => {
  it('keeps reason and notes in the history and shows the reason to the owner side', async () => {
    const server = await serverIn('PENDING');
    t.clock.advance(1000);
    const rejected = await act('reject', server.id, p.moderator, {
      reason: 'No address',
      notes: 'Asked twice',
    });
    expect(rejected.json()).toMatchObject({ status: 'REJECTED', statusReason: 'No address' });
    t.clock.advance(1000);
    const approved = await act('approve', server.id, p.admin, { notes: 'Fixed now' });
    expect(approved.json()).toMatchObject({ status: 'APPROVED', statusReason: null });
    t.clock.advance(1000);
    await act('suspend', server.id, p.superAdmin, { reason: 'Abuse reports' });
    const events = await history(server.id);
    expect(events.map(({ id: _id, createdAt: _at, ...rest }) => rest)).toEqual([
      {
        action: 'REJECT',
        fromStatus: 'PENDING',
        toStatus: 'REJECTED',
        reason: 'No address',
        notes: 'Asked twice',
        moderator: { id: p.moderator.id, username: p.moderator.username },
      },
      {
        action: 'APPROVE',
        fromStatus: 'REJECTED',
        toStatus: 'APPROVED',
        reason: null,
        notes: 'Fixed now',
        moderator: { id: p.admin.id, username: p.admin.username },
      },
      {
        action: 'SUSPEND',
        fromStatus: 'APPROVED',
        toStatus: 'SUSPENDED',
        reason: 'Abuse reports',
        notes: null,
        moderator: { id: p.superAdmin.id, username: p.superAdmin.username },
      },
    ]);
    const times = events.map((event) => event['createdAt'] as string);
    expect([...times].sort()).toEqual(times);
    expect((await getServer(t.app, server.slug, p.user)).statusReason).toBe('Abuse reports');
  });

  it.each(['reject', 'suspend'] as const)('%s needs a reason (400)', async (action) => {
    const server = await serverIn('PENDING');
    for (const payload of [{}, { reason: '' }, { reason: '   ' }, { notes: 'only notes' }]) {
      expectError(await act(action, server.id, p.moderator, payload), 400, 'INVALID_REQUEST');
    }
    expectError(
      await t.app.inject({
        method: 'POST',
        url: `/servers/moderation/${server.id}/${action}`,
        headers: p.moderator.headers,
      }),
      400,
    );
    expect((await getServer(t.app, server.slug, p.user)).status).toBe('PENDING');
  });

  it('approves without a body, with an empty body, or with notes', async () => {
    for (const payload of [undefined, {}, { notes: null }]) {
      const server = await serverIn('PENDING');
      const response = await t.app.inject({
        method: 'POST',
        url: `/servers/moderation/${server.id}/approve`,
        headers: p.moderator.headers,
        ...(payload !== undefined ? { payload } : {}),
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ status: 'APPROVED' });
    }
  });

  it('refuses notes over 2000 characters (400)', async () => {
    const server = await serverIn('PENDING');
    expectError(await act('approve', server.id, p.moderator, { notes: 'n'.repeat(2001) }), 400);
  });

  it('is 404 for an unknown server', async () => {
    const unknown = '01900000-0000-7000-8000-000000000000';
    expectError(await act('approve', unknown, p.moderator), 404, 'NOT_FOUND');
    expectError(
      await t.app.inject({
        method: 'GET',
        url: `/servers/moderation/${unknown}/history`,
        headers: p.moderator.headers,
      }),
      404,
    );
  });
});

describe('what follows a transition', () => {
  it('moves usage counts and the public total in and out of APPROVED, and drops the rank', async () => {
    const tag = seeded.tags[6]!;
    const category = seeded.categories[2]!;
    const usage = async () => {
      const [tagBody, categoryBody, list] = await Promise.all([
        t.app.inject({ method: 'GET', url: `/server-tags/${tag.slug}` }),
        t.app.inject({ method: 'GET', url: `/server-categories/${category.slug}` }),
        t.app.inject({ method: 'GET', url: '/servers' }),
      ]);
      return [
        (tagBody.json() as { usageCount: number }).usageCount,
        (categoryBody.json() as { usageCount: number }).usageCount,
        (list.json() as { total: number }).total,
      ];
    };
    const server = await serverIn('PENDING', { tagIds: [tag.id], categoryIds: [category.id] });
    const [tagUse, categoryUse, total] = await usage();
    await moderate(t.app, p.moderator, server.id, 'approve');
    expect(await usage()).toEqual([tagUse! + 1, categoryUse! + 1, total! + 1]);
    await reportStatus(t.app, p.user, server.id, { online: true, onlinePlayers: 5, maxPlayers: 10 });
    await recomputeRanks(t.app);
    expect((await getServer(t.app, server.slug)).rank).toEqual(expect.any(Number));
    await moderate(t.app, p.moderator, server.id, 'suspend');
    expect(await usage()).toEqual([tagUse, categoryUse, total]);
    expect((await getServer(t.app, server.slug, p.user)).rank).toBeNull();
    await moderate(t.app, p.moderator, server.id, 'approve');
    expect(await usage()).toEqual([tagUse! + 1, categoryUse! + 1, total! + 1]);
    await moderate(t.app, p.moderator, server.id, 'reject');
    expect(await usage()).toEqual([tagUse, categoryUse, total]);
  });

  it('lets exactly one of two simultaneous approvals through', async () => {
    const server = await serverIn('PENDING');
    const responses = await Promise.all([
      act('approve', server.id, p.moderator),
      act('approve', server.id, p.admin),
    ]);
    expect(responses.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect((await history(server.id)).filter((event) => event['action'] === 'APPROVE')).toHaveLength(1);
  });
});

describe('who may moderate', () => {
  it.each(['approve', 'reject', 'suspend'] as const)(
    '%s: 401 anonymous, 403 users and owners',
    async (action) => {
      const server = await serverIn('PENDING');
      expectError(await act(action, server.id, null), 401, 'UNAUTHORIZED');
      expectError(await act(action, server.id, p.user), 403, 'FORBIDDEN');
      expectError(await act(action, server.id, p.stranger), 403, 'FORBIDDEN');
      expect((await getServer(t.app, server.slug, p.user)).status).toBe('PENDING');
    },
  );

  it('history and queue are for moderators too', async () => {
    const server = await serverIn('PENDING');
    for (const url of [`/servers/moderation/${server.id}/history`, '/servers/moderation/status/PENDING']) {
      expectError(await t.app.inject({ method: 'GET', url }), 401);
      expectError(await t.app.inject({ method: 'GET', url, headers: p.user.headers }), 403);
    }
  });
});

describe('GET /servers/moderation/status/:status', () => {
  it('lists the servers in a status, longest-waiting first, with total', async () => {
    const fresh = await buildTestApp();
    try {
      const personas = await createPersonas(fresh.app);
      const made: ServerBody[] = [];
      for (let i = 0; i < 3; i++) {
        fresh.clock.advance(1000);
        made.push(await createServer(fresh.app, personas.user, { name: `Queue ${i}` }));
      }
      await moderate(fresh.app, personas.moderator, made[1]!.id, 'reject');
      const queue = await fresh.app.inject({
        method: 'GET',
        url: '/servers/moderation/status/PENDING',
        headers: personas.moderator.headers,
      });
      expect(queue.statusCode, queue.body).toBe(200);
      const body = queue.json() as { servers: ServerBody[]; total: number; meta: unknown };
      expect(body.servers.map((s) => s.id)).toEqual([made[0]!.id, made[2]!.id]);
      expect(body.servers[0]).toHaveProperty('description');
      expect(body.total).toBe(2);
      expect(body.meta).toEqual({ total: 2, limit: 20, offset: 0 });
      const paged = await fresh.app.inject({
        method: 'GET',
        url: '/servers/moderation/status/PENDING?limit=1&offset=1',
        headers: personas.moderator.headers,
      });
      expect((paged.json() as { servers: ServerBody[] }).servers.map((s) => s.id)).toEqual([made[2]!.id]);
      const rejected = await fresh.app.inject({
        method: 'GET',
        url: '/servers/moderation/status/REJECTED',
        headers: personas.admin.headers,
      });
      expect((rejected.json() as { servers: ServerBody[] }).servers.map((s) => s.id)).toEqual([made[1]!.id]);
      expectError(
        await fresh.app.inject({
          method: 'GET',
          url: '/servers/moderation/status/DELETED',
          headers: personas.moderator.headers,
        }),
        400,
      );
    } finally {
      await fresh.close();
    }
  });
});
