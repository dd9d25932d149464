// Resource moderation (DESIGN §8): the status machine (pure, every pair), the endpoint, the history, the
// moderation lists and their totals.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MODERATION_ACTIONS, nextStatus } from '../../src/modules/resources/moderation/moderation.states.js';
import type { ModerationAction } from '../../src/modules/resources/moderation/moderation.states.js';
import type { ResourceStatus } from '../../src/core/db/schema.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import {
  createResource,
  createResourceCast,
  expectResourceInvariants,
  moderate,
  resourceFor,
} from './helpers.js';
import type { ResourceBody, ResourceCast, ResourceListBody } from './helpers.js';

const STATUSES: ResourceStatus[] = ['PENDING', 'APPROVED', 'REJECTED', 'SUSPENDED'];

/** DESIGN §8, written out: every (status, action) pair not listed is refused. */
const ALLOWED: Record<string, ResourceStatus> = {
  'PENDING APPROVE': 'APPROVED',
  'REJECTED APPROVE': 'APPROVED',
  'PENDING REJECT': 'REJECTED',
  'APPROVED REJECT': 'REJECTED',
  'PENDING SUSPEND': 'SUSPENDED',
  'APPROVED SUSPEND': 'SUSPENDED',
  'SUSPENDED UNSUSPEND': 'APPROVED',
};
const PAIRS = STATUSES.flatMap((status) =>
  MODERATION_ACTIONS.map((action): [ResourceStatus, ModerationAction, ResourceStatus | null] => [
    status,
    action,
    ALLOWED[`${status} ${action}`] ?? null,
  ]),
);

describe('the status machine (pure)', () => {
  it.each(PAIRS)('%s + %s → %s', (status, action, expected) => {
    expect(nextStatus(status, action)).toBe(expected);
  });
});

describe('PATCH /resources/moderation/:id/moderate', () => {
  let t: TestApp;
  let cast: ResourceCast;

  beforeAll(async () => {
    t = await buildTestApp();
    cast = await createResourceCast(t.app);
  });
  afterAll(async () => t.close());
  afterEach(async () => expectResourceInvariants(t.app));

  it.each(PAIRS)('from %s, %s → %s (409 when refused)', async (status, action, expected) => {
    const resource = await resourceFor(t.app, cast, 'USER', status === 'PENDING' ? 'PENDING' : status);
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/resources/moderation/${resource.id}/moderate`,
      headers: cast.moderator.headers,
      payload: { action },
    });
    if (expected === null) {
      expectError(response, 409, 'INVALID_STATUS_TRANSITION');
      const unchanged = await t.app.inject({
        method: 'GET',
        url: `/resources/${resource.id}`,
        headers: cast.moderator.headers,
      });
      expect(unchanged.json()).toMatchObject({ status });
    } else {
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ id: resource.id, status: expected });
    }
  });

  it('records every action in the history with its moderator and reason, oldest first', async () => {
    const resource = await createResource(t.app, cast.owner);
    t.clock.advance(1000);
    await moderate(t.app, cast.moderator, resource.id, 'REJECT', 'Missing screenshots');
    t.clock.advance(1000);
    await moderate(t.app, cast.admin, resource.id, 'APPROVE');
    t.clock.advance(1000);
    await moderate(t.app, cast.moderator, resource.id, 'SUSPEND', '');
    // A refused action leaves no trace.
    expectError(
      await t.app.inject({
        method: 'PATCH',
        url: `/resources/moderation/${resource.id}/moderate`,
        headers: cast.moderator.headers,
        payload: { action: 'APPROVE' },
      }),
      409,
    );
    const response = await t.app.inject({
      method: 'GET',
      url: `/resources/moderation/${resource.id}/history`,
      headers: cast.admin.headers,
    });
    expect(response.statusCode, response.body).toBe(200);
    const { history } = response.json() as { history: Array<Record<string, unknown>> };
    expect(history.map(({ id: _id, createdAt: _at, ...rest }) => rest)).toEqual([
      {
        action: 'REJECT',
        fromStatus: 'PENDING',
        toStatus: 'REJECTED',
        reason: 'Missing screenshots',
        moderator: { id: cast.moderator.id, username: cast.moderator.username },
      },
      {
        action: 'APPROVE',
        fromStatus: 'REJECTED',
        toStatus: 'APPROVED',
        reason: null,
        moderator: { id: cast.admin.id, username: cast.admin.username },
      },
      {
        action: 'SUSPEND',
        fromStatus: 'APPROVED',
        toStatus: 'SUSPENDED',
        reason: null,
        moderator: { id: cast.moderator.id, username: cast.moderator.username },
      },
    ]);
    const times = history.map((event) => event['createdAt'] as string);
    expect([...times].sort()).toEqual(times);
  });

  it('records an owner-side edit of a REJECTED resource as RESUBMIT, without a moderator', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'REJECTED');
    t.clock.advance(1000);
    const edited = await t.app.inject({
      method: 'PATCH',
      url: `/resources/${resource.id}`,
      headers: cast.maintainer.headers,
      payload: { description: 'Addressed the review' },
    });
    expect(edited.json()).toMatchObject({ status: 'PENDING' });
    // An edit of a resource that is not REJECTED leaves no trace.
    await t.app.inject({
      method: 'PATCH',
      url: `/resources/${resource.id}`,
      headers: cast.owner.headers,
      payload: { name: 'Pending edit' },
    });
    const response = await t.app.inject({
      method: 'GET',
      url: `/resources/moderation/${resource.id}/history`,
      headers: cast.moderator.headers,
    });
    const { history } = response.json() as { history: Array<Record<string, unknown>> };
    expect(history.map((event) => [event['action'], event['fromStatus'], event['toStatus']])).toEqual([
      ['REJECT', 'PENDING', 'REJECTED'],
      ['RESUBMIT', 'REJECTED', 'PENDING'],
    ]);
    expect(history[1]).toMatchObject({ moderator: null, reason: null });
  });

  it('lets a super admin moderate; refuses an unknown action with 400 and an unknown resource with 404', async () => {
    const superAdmin = await createUser(t.app, { role: 'SUPER_ADMIN' });
    const resource = await createResource(t.app, cast.owner);
    await moderate(t.app, superAdmin, resource.id, 'APPROVE');
    expectError(
      await t.app.inject({
        method: 'PATCH',
        url: `/resources/moderation/${resource.id}/moderate`,
        headers: cast.moderator.headers,
        payload: { action: 'DELETE' },
      }),
      400,
    );
    expectError(
      await t.app.inject({
        method: 'PATCH',
        url: `/resources/moderation/${resource.id}/moderate`,
        headers: cast.moderator.headers,
        payload: {},
      }),
      400,
    );
    const unknown = '01900000-0000-7000-8000-000000000000';
    expectError(
      await t.app.inject({
        method: 'PATCH',
        url: `/resources/moderation/${unknown}/moderate`,
        headers: cast.moderator.headers,
        payload: { action: 'APPROVE' },
      }),
      404,
    );
    expectError(
      await t.app.inject({
        method: 'GET',
        url: `/resources/moderation/${unknown}/history`,
        headers: cast.moderator.headers,
      }),
      404,
    );
  });

  it('of two concurrent moderations of one resource, exactly one wins', async () => {
    const resource = await createResource(t.app, cast.owner);
    const responses = await Promise.all(
      (['APPROVE', 'REJECT', 'SUSPEND'] as const).map((action) =>
        t.app.inject({
          method: 'PATCH',
          url: `/resources/moderation/${resource.id}/moderate`,
          headers: cast.moderator.headers,
          payload: { action },
        }),
      ),
    );
    const statuses = responses.map((response) => response.statusCode).sort();
    // Whichever goes first wins; the others are checked against the status it left (some may still be allowed).
    expect(statuses[0]).toBe(200);
    const history = await t.app.inject({
      method: 'GET',
      url: `/resources/moderation/${resource.id}/history`,
      headers: cast.moderator.headers,
    });
    expect((history.json() as { history: unknown[] }).history).toHaveLength(
      statuses.filter((s) => s === 200).length,
    );
  });
});

describe('moderation lists', () => {
  let t: TestApp;
  let cast: ResourceCast;
  let pending: ResourceBody[];

  beforeAll(async () => {
    t = await buildTestApp();
    cast = await createResourceCast(t.app);
    pending = [];
    for (let i = 0; i < 3; i++) {
      t.clock.advance(1000);
      pending.push(await createResource(t.app, cast.owner));
    }
    await resourceFor(t.app, cast, 'TEAM', 'APPROVED');
    await resourceFor(t.app, cast, 'USER', 'REJECTED');
    await resourceFor(t.app, cast, 'USER', 'SUSPENDED');
  });
  afterAll(async () => t.close());

  async function get(url: string) {
    const response = await t.app.inject({ method: 'GET', url, headers: cast.moderator.headers });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as ResourceListBody;
  }

  it('the pending queue lists PENDING resources oldest first, with their total', async () => {
    const body = await get('/resources/moderation/pending');
    expect(body.resources.map((r) => r.id)).toEqual(pending.map((r) => r.id));
    expect(body.total).toBe(3);
    const page = await get('/resources/moderation/pending?page=2&limit=2');
    expect(page.resources.map((r) => r.id)).toEqual([pending[2]!.id]);
    expect(page.meta).toEqual({ total: 3, limit: 2, offset: 2, page: 2 });
  });

  it.each([
    ['PENDING', 3],
    ['APPROVED', 1],
    ['REJECTED', 1],
    ['SUSPENDED', 1],
  ] as const)('lists the %s resources', async (status, count) => {
    const body = await get(`/resources/moderation/status/${status}`);
    expect(body.total).toBe(count);
    expect(body.resources).toHaveLength(count);
    expect(body.resources.every((r) => r.status === status)).toBe(true);
  });

  it('refuses an unknown status with 400', async () => {
    expectError(
      await t.app.inject({
        method: 'GET',
        url: '/resources/moderation/status/DRAFT',
        headers: cast.moderator.headers,
      }),
      400,
    );
  });

  it.each(['/resources/moderation/pending', '/resources/moderation/status/PENDING'])(
    '%s is for moderators and above',
    async (url) => {
      expectError(await t.app.inject({ method: 'GET', url }), 401);
      for (const persona of ['owner', 'stranger', 'teamOwner', 'maintainer'] as const) {
        expectError(await t.app.inject({ method: 'GET', url, headers: cast[persona].headers }), 403);
      }
      expect((await t.app.inject({ method: 'GET', url, headers: cast.admin.headers })).statusCode).toBe(200);
    },
  );
});
