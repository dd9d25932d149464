// Badges on profiles (the BadgeReader wired into the users module): private profile, both public profiles,
// user search and the admin list show a user's active badges, newest award first, and stop showing one that
// is revoked, deactivated or deleted.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas, createUser } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import { awardOk, createBadge, expectAwardedCounts, revoke } from './helpers.js';
import type { BadgeBody } from './helpers.js';

let t: TestApp;
let p: Personas;

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
});
afterAll(async () => t.close());
afterEach(async () => expectAwardedCounts(t.app));

interface ProfileBadge {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  iconUrl: string | null;
  color: string | null;
  awardedAt: string;
}

/** The badges every profile view shows for `user`, one list per view. */
async function profileBadges(user: TestUser): Promise<Record<string, ProfileBadge[]>> {
  const viewer = p.stranger;
  const [privateProfile, byId, byIdAsViewer, byUsername, search, admin] = await Promise.all([
    t.app.inject({ method: 'GET', url: '/users/me', headers: user.headers }),
    t.app.inject({ method: 'GET', url: `/users/${user.id}` }),
    t.app.inject({ method: 'GET', url: `/users/${user.id}`, headers: viewer.headers }),
    t.app.inject({ method: 'GET', url: `/users/username/${user.username}` }),
    t.app.inject({
      method: 'GET',
      url: `/users/search?q=${user.username}&limit=100`,
      headers: viewer.headers,
    }),
    t.app.inject({
      method: 'GET',
      url: `/admin/users?search=${user.username}&limit=100`,
      headers: p.admin.headers,
    }),
  ]);
  for (const response of [privateProfile, byId, byIdAsViewer, byUsername, search, admin]) {
    expect(response.statusCode, response.body).toBe(200);
  }
  const hit = (body: { users: Array<{ id: string; badges: ProfileBadge[] }> }) =>
    body.users.find((found) => found.id === user.id)!.badges;
  return {
    private: privateProfile.json().badges,
    publicById: byId.json().badges,
    publicByIdAsViewer: byIdAsViewer.json().badges,
    publicByUsername: byUsername.json().badges,
    search: hit(search.json()),
    admin: hit(admin.json()),
  };
}

function expectEverywhere(views: Record<string, ProfileBadge[]>, expected: ProfileBadge[]) {
  for (const [view, badges] of Object.entries(views)) expect(badges, view).toEqual(expected);
}

const shown = (badge: BadgeBody, awardedAt: string): ProfileBadge => ({
  id: badge.id,
  name: badge.name,
  slug: badge.slug,
  description: badge.description,
  iconUrl: badge.iconUrl,
  color: badge.color,
  awardedAt,
});

const setActive = (badgeId: string, isActive: boolean) =>
  t.app.inject({
    method: 'PATCH',
    url: `/badges/${badgeId}`,
    headers: p.admin.headers,
    payload: { isActive },
  });

describe('badges on profiles', () => {
  it('a user without badges shows an empty list everywhere', async () => {
    expectEverywhere(await profileBadges(await createUser(t.app)), []);
  });

  it('shows awarded badges in every profile view and in search, newest award first', async () => {
    const user = await createUser(t.app);
    const older = await createBadge(t.app, p.admin, {
      description: 'Early bird',
      iconUrl: 'https://cdn.example/early.png',
      color: '#ABCDEF',
    });
    const newer = await createBadge(t.app, p.admin);
    const olderAt = t.clock.now().toISOString();
    await awardOk(t.app, p.moderator, older.id, user.id);
    t.clock.advance(60_000);
    const newerAt = t.clock.now().toISOString();
    await awardOk(t.app, p.moderator, newer.id, user.id);
    expectEverywhere(await profileBadges(user), [shown(newer, newerAt), shown(older, olderAt)]);
  });

  it('search shows each hit its own badges (one batched read for all hits)', async () => {
    const stem = `srch${process.pid}${Date.now() % 100000}`;
    const [a, b, c] = await Promise.all([
      createUser(t.app, { username: `${stem}_a` }),
      createUser(t.app, { username: `${stem}_b` }),
      createUser(t.app, { username: `${stem}_c` }),
    ]);
    const [forA, forB] = await Promise.all([createBadge(t.app, p.admin), createBadge(t.app, p.admin)]);
    await awardOk(t.app, p.moderator, forA.id, a.id);
    await awardOk(t.app, p.moderator, forB.id, b.id);
    await awardOk(t.app, p.moderator, forA.id, b.id);
    const response = await t.app.inject({
      method: 'GET',
      url: `/users/search?q=${stem}`,
      headers: p.user.headers,
    });
    const users = response.json().users as Array<{ id: string; badges: ProfileBadge[] }>;
    const badgeIds = (user: TestUser) =>
      users.find((hit) => hit.id === user.id)!.badges.map((badge) => badge.id);
    expect(badgeIds(a)).toEqual([forA.id]);
    expect(badgeIds(b).sort()).toEqual([forA.id, forB.id].sort());
    expect(badgeIds(c)).toEqual([]);
  });

  it('a revoked badge disappears everywhere', async () => {
    const user = await createUser(t.app);
    const [kept, revoked] = await Promise.all([createBadge(t.app, p.admin), createBadge(t.app, p.admin)]);
    const at = t.clock.now().toISOString();
    await awardOk(t.app, p.moderator, kept.id, user.id);
    await awardOk(t.app, p.moderator, revoked.id, user.id);
    expect((await revoke(t.app, p.moderator, revoked.id, user.id)).statusCode).toBe(200);
    expectEverywhere(await profileBadges(user), [shown(kept, at)]);
  });

  it('a deactivated badge disappears everywhere and comes back when reactivated', async () => {
    const user = await createUser(t.app);
    const badge = await createBadge(t.app, p.admin);
    const at = t.clock.now().toISOString();
    await awardOk(t.app, p.moderator, badge.id, user.id);
    expect((await setActive(badge.id, false)).statusCode).toBe(200);
    expectEverywhere(await profileBadges(user), []);
    expect((await setActive(badge.id, true)).statusCode).toBe(200);
    expectEverywhere(await profileBadges(user), [shown(badge, at)]);
  });

  it('a deleted badge disappears everywhere', async () => {
    const user = await createUser(t.app);
    const badge = await createBadge(t.app, p.admin);
    await awardOk(t.app, p.moderator, badge.id, user.id);
    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/badges/${badge.id}`,
      headers: p.admin.headers,
    });
    expect(removed.statusCode).toBe(204);
    expectEverywhere(await profileBadges(user), []);
  });

  it('an edited badge shows its new name and color on profiles', async () => {
    const user = await createUser(t.app);
    const badge = await createBadge(t.app, p.admin);
    const at = t.clock.now().toISOString();
    await awardOk(t.app, p.moderator, badge.id, user.id);
    const edited = await t.app.inject({
      method: 'PATCH',
      url: `/badges/${badge.id}`,
      headers: p.admin.headers,
      payload: { name: 'Veteran', color: '#FF0000' },
    });
    expect(edited.statusCode).toBe(200);
    expectEverywhere(await profileBadges(user), [{ ...shown(badge, at), name: 'Veteran', color: '#FF0000' }]);
  });
});
