// Awarding and revoking badges: the answers, the 404/409 rules, awardedCount, a user's badge list, and
// concurrent awards.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas, createUser } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import { award, awardOk, createBadge, expectAwardedCounts, getBadge, revoke } from './helpers.js';
import type { BadgeBody } from './helpers.js';

let t: TestApp;
let p: Personas;

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
});
afterAll(async () => t.close());
afterEach(async () => expectAwardedCounts(t.app));

const UNKNOWN = '0190aaaa-0000-7000-8000-000000000000';

interface UserBadgeBody extends BadgeBody {
  awardedAt: string;
  awardedBy: { id: string; username: string } | null;
  reason: string | null;
}
async function badgesOf(user: TestUser): Promise<UserBadgeBody[]> {
  const response = await t.app.inject({ method: 'GET', url: `/badges/users/${user.id}` });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { badges: UserBadgeBody[] }).badges;
}

describe('POST /badges/award', () => {
  it('awards a badge: 201 {message, userBadge}; awardedCount moves to 1', async () => {
    const [badge, user] = await Promise.all([createBadge(t.app, p.admin), createUser(t.app)]);
    const response = await award(t.app, p.moderator, badge.id, user.id, 'Top contributor');
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toEqual({
      message: expect.any(String),
      userBadge: {
        id: expect.any(String),
        userId: user.id,
        badgeId: badge.id,
        awardedAt: t.clock.now().toISOString(),
      },
    });
    expect((await getBadge(t.app, badge.id)).awardedCount).toBe(1);
  });

  it('refuses the same badge twice with 409 BADGE_ALREADY_AWARDED; the count stays', async () => {
    const [badge, user] = await Promise.all([createBadge(t.app, p.admin), createUser(t.app)]);
    await awardOk(t.app, p.moderator, badge.id, user.id);
    expectError(await award(t.app, p.admin, badge.id, user.id), 409, 'BADGE_ALREADY_AWARDED');
    expect((await getBadge(t.app, badge.id)).awardedCount).toBe(1);
  });

  it('refuses an inactive badge with 409 BADGE_INACTIVE', async () => {
    const [badge, user] = await Promise.all([
      createBadge(t.app, p.admin, { isActive: false }),
      createUser(t.app),
    ]);
    expectError(await award(t.app, p.moderator, badge.id, user.id), 409, 'BADGE_INACTIVE');
    expect((await getBadge(t.app, badge.id)).awardedCount).toBe(0);
  });

  it('answers 404 for an unknown badge, an unknown user and a banned user', async () => {
    const [badge, user] = await Promise.all([createBadge(t.app, p.admin), createUser(t.app)]);
    expectError(await award(t.app, p.moderator, UNKNOWN, user.id), 404);
    expectError(await award(t.app, p.moderator, badge.id, UNKNOWN), 404);
    const banned = await createUser(t.app);
    const ban = await t.app.inject({
      method: 'PATCH',
      url: `/admin/users/${banned.id}`,
      headers: p.admin.headers,
      payload: { status: 'BANNED' },
    });
    expect(ban.statusCode).toBe(200);
    expectError(await award(t.app, p.moderator, badge.id, banned.id), 404);
    expect((await getBadge(t.app, badge.id)).awardedCount).toBe(0);
  });

  it.each([{}, { badgeId: 'x' }, { userId: 'x' }])('refuses an incomplete body %j (400)', async (payload) => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/badges/award',
      headers: p.moderator.headers,
      payload,
    });
    expectError(response, 400);
  });
});

describe('DELETE /badges/:badgeId/users/:userId', () => {
  it('revokes (200 {message}) and moves awardedCount back; a second revoke is 404', async () => {
    const [badge, user] = await Promise.all([createBadge(t.app, p.admin), createUser(t.app)]);
    await awardOk(t.app, p.moderator, badge.id, user.id);
    const response = await revoke(t.app, p.moderator, badge.id, user.id);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ message: 'Badge revoked' });
    expect((await getBadge(t.app, badge.id)).awardedCount).toBe(0);
    expect(await badgesOf(user)).toEqual([]);
    expectError(await revoke(t.app, p.moderator, badge.id, user.id), 404);
  });

  it('answers 404 when the user does not have the badge, or either does not exist', async () => {
    const [badge, user] = await Promise.all([createBadge(t.app, p.admin), createUser(t.app)]);
    expectError(await revoke(t.app, p.moderator, badge.id, user.id), 404);
    expectError(await revoke(t.app, p.moderator, UNKNOWN, user.id), 404);
    expectError(await revoke(t.app, p.moderator, badge.id, UNKNOWN), 404);
  });

  it('a revoked badge can be awarded again', async () => {
    const [badge, user] = await Promise.all([createBadge(t.app, p.admin), createUser(t.app)]);
    await awardOk(t.app, p.moderator, badge.id, user.id);
    expect((await revoke(t.app, p.moderator, badge.id, user.id)).statusCode).toBe(200);
    await awardOk(t.app, p.moderator, badge.id, user.id);
    expect((await getBadge(t.app, badge.id)).awardedCount).toBe(1);
  });
});

describe('GET /badges/users/:userId', () => {
  it('lists the badges with awardedAt, awardedBy and reason, newest award first', async () => {
    const user = await createUser(t.app);
    const first = await createBadge(t.app, p.admin, { color: '#00FF00' });
    const second = await createBadge(t.app, p.admin);
    const firstAt = t.clock.now().toISOString();
    await awardOk(t.app, p.moderator, first.id, user.id, 'Helped newcomers');
    t.clock.advance(60_000);
    const secondAt = t.clock.now().toISOString();
    await awardOk(t.app, p.admin, second.id, user.id);
    expect(await badgesOf(user)).toEqual([
      {
        ...second,
        awardedCount: 1,
        awardedAt: secondAt,
        awardedBy: { id: p.admin.id, username: p.admin.username },
        reason: null,
      },
      {
        ...first,
        awardedCount: 1,
        awardedAt: firstAt,
        awardedBy: { id: p.moderator.id, username: p.moderator.username },
        reason: 'Helped newcomers',
      },
    ]);
  });

  it('hides inactive badges', async () => {
    const user = await createUser(t.app);
    const badge = await createBadge(t.app, p.admin);
    await awardOk(t.app, p.moderator, badge.id, user.id);
    await t.app.inject({
      method: 'PATCH',
      url: `/badges/${badge.id}`,
      headers: p.admin.headers,
      payload: { isActive: false },
    });
    expect(await badgesOf(user)).toEqual([]);
  });

  it('answers 404 for an unknown user', async () => {
    expectError(await t.app.inject({ method: 'GET', url: `/badges/users/${UNKNOWN}` }), 404);
  });
});

describe('concurrency', () => {
  it('10 parallel awards of one badge to 10 users: awardedCount is exactly 10', async () => {
    const badge = await createBadge(t.app, p.admin);
    const users = await Promise.all(Array.from({ length: 10 }, () => createUser(t.app)));
    const responses = await Promise.all(users.map((user) => award(t.app, p.moderator, badge.id, user.id)));
    expect(responses.map((response) => response.statusCode)).toEqual(Array<number>(10).fill(201));
    expect((await getBadge(t.app, badge.id)).awardedCount).toBe(10);
  });

  it('10 parallel awards of 10 distinct badges to one user: each count is exactly 1', async () => {
    const user = await createUser(t.app);
    const badges = await Promise.all(Array.from({ length: 10 }, () => createBadge(t.app, p.admin)));
    const responses = await Promise.all(badges.map((badge) => award(t.app, p.moderator, badge.id, user.id)));
    expect(responses.map((response) => response.statusCode)).toEqual(Array<number>(10).fill(201));
    for (const badge of badges) expect((await getBadge(t.app, badge.id)).awardedCount).toBe(1);
    expect(await badgesOf(user)).toHaveLength(10);
  });

  it('10 parallel identical awards: exactly one 201, nine 409, awardedCount 1', async () => {
    const [badge, user] = await Promise.all([createBadge(t.app, p.admin), createUser(t.app)]);
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => award(t.app, p.moderator, badge.id, user.id)),
    );
    expect(responses.map((response) => response.statusCode).sort()).toEqual([
      201,
      ...Array<number>(9).fill(409),
    ]);
    expectError(
      responses.find((response) => response.statusCode === 409)!,
      409,
      'BADGE_ALREADY_AWARDED',
    );
    expect((await getBadge(t.app, badge.id)).awardedCount).toBe(1);
  });

  it('parallel revokes of one award: one 200, the rest 404, awardedCount 0', async () => {
    const [badge, user] = await Promise.all([createBadge(t.app, p.admin), createUser(t.app)]);
    await awardOk(t.app, p.moderator, badge.id, user.id);
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => revoke(t.app, p.moderator, badge.id, user.id)),
    );
    expect(responses.map((response) => response.statusCode).sort()).toEqual([200, 404, 404, 404, 404]);
    expect((await getBadge(t.app, badge.id)).awardedCount).toBe(0);
  });
});
