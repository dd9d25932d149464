// Team members: role changes under the rank rules, ownership transfer, removal, leaving, and counters under
// concurrency. After every test: exactly one OWNER per team, owner_id in step, member_count exact.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import {
  addMember,
  createCast,
  createStaffedTeam,
  createTeam,
  expectTeamInvariants,
  getTeam,
  invite,
  respond,
  roleOf,
} from './helpers.js';
import type { TeamBody, TeamCast } from './helpers.js';

let t: TestApp;
let cast: TeamCast;

beforeAll(async () => {
  t = await buildTestApp();
  cast = await createCast(t.app);
});
afterAll(async () => t.close());
afterEach(async () => expectTeamInvariants(t.app));

const setRole = (team: TeamBody, by: TestUser, target: TestUser | string, role: string) =>
  t.app.inject({
    method: 'PATCH',
    url: `/teams/${team.id}/members/${typeof target === 'string' ? target : target.id}`,
    headers: by.headers,
    payload: { role },
  });

const remove = (team: TeamBody, by: TestUser, target: TestUser) =>
  t.app.inject({ method: 'DELETE', url: `/teams/${team.id}/members/${target.id}`, headers: by.headers });

const leave = (team: TeamBody, user: TestUser) =>
  t.app.inject({ method: 'DELETE', url: `/teams/${team.id}/leave`, headers: user.headers });

describe('PATCH /teams/:id/members/:memberId', () => {
  it('lets the owner move a member through MODERATOR, ADMIN and back, returning the member', async () => {
    const team = await createStaffedTeam(t.app, cast);
    for (const role of ['MODERATOR', 'ADMIN', 'MEMBER']) {
      const response = await setRole(team, cast.owner, cast.member, role);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({
        userId: cast.member.id,
        role,
        teamId: team.id,
        user: {
          id: cast.member.id,
          username: cast.member.username,
          displayName: null,
          image: expect.any(String),
        },
        joinedAt: expect.any(String),
      });
      expect(roleOf(await getTeam(t.app, team.slug), cast.member.id)).toBe(role);
    }
  });

  it('lets the owner demote an admin', async () => {
    const team = await createStaffedTeam(t.app, cast);
    expect((await setRole(team, cast.owner, cast.admin, 'MEMBER')).statusCode).toBe(200);
    expect(roleOf(await getTeam(t.app, team.slug), cast.admin.id)).toBe('MEMBER');
  });

  it('lets an admin manage MEMBER and MODERATOR between those two roles only', async () => {
    const team = await createStaffedTeam(t.app, cast);
    expect((await setRole(team, cast.admin, cast.member, 'MODERATOR')).statusCode).toBe(200);
    expect((await setRole(team, cast.admin, cast.moderator, 'MEMBER')).statusCode).toBe(200);
    expectError(await setRole(team, cast.admin, cast.member, 'ADMIN'), 403);
    expectError(await setRole(team, cast.admin, cast.member, 'OWNER'), 403);
    const shown = await getTeam(t.app, team.slug);
    expect(roleOf(shown, cast.member.id)).toBe('MODERATOR');
    expect(roleOf(shown, cast.moderator.id)).toBe('MEMBER');
  });

  it('keeps an admin away from other admins and the owner (403)', async () => {
    const team = await createStaffedTeam(t.app, cast);
    const otherAdmin = await createUser(t.app);
    await addMember(t.app, team.id, cast.owner, otherAdmin, 'ADMIN');
    expectError(await setRole(team, cast.admin, otherAdmin, 'MEMBER'), 403);
    expectError(await setRole(team, cast.admin, cast.owner, 'MEMBER'), 403);
    expectError(await setRole(team, cast.admin, cast.owner, 'ADMIN'), 403);
    const shown = await getTeam(t.app, team.slug);
    expect(roleOf(shown, otherAdmin.id)).toBe('ADMIN');
    expect(roleOf(shown, cast.owner.id)).toBe('OWNER');
  });

  it('lets an admin step down themselves, but not promote themselves', async () => {
    const team = await createStaffedTeam(t.app, cast);
    expectError(await setRole(team, cast.admin, cast.admin, 'OWNER'), 403);
    expect((await setRole(team, cast.admin, cast.admin, 'MODERATOR')).statusCode).toBe(200);
    expectError(await setRole(team, cast.admin, cast.admin, 'ADMIN'), 403);
    expect(roleOf(await getTeam(t.app, team.slug), cast.admin.id)).toBe('MODERATOR');
  });

  it("refuses to change the owner's role directly (409): ownership is handed over instead", async () => {
    const team = await createStaffedTeam(t.app, cast);
    for (const role of ['ADMIN', 'MODERATOR', 'MEMBER']) {
      expectError(await setRole(team, cast.owner, cast.owner, role), 409, 'OWNER_MUST_TRANSFER');
    }
    const same = await setRole(team, cast.owner, cast.owner, 'OWNER');
    expect(same.statusCode).toBe(200);
    expect(same.json()).toMatchObject({ role: 'OWNER' });
  });

  it('hands ownership over: the target becomes OWNER, the previous owner ADMIN, ownerId follows', async () => {
    const team = await createStaffedTeam(t.app, cast);
    t.clock.advance(1000);
    const response = await setRole(team, cast.owner, cast.member, 'OWNER');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ userId: cast.member.id, role: 'OWNER' });
    const shown = await getTeam(t.app, team.slug);
    expect(shown.ownerId).toBe(cast.member.id);
    expect(shown.updatedAt).toBe(t.clock.now().toISOString());
    // Members are listed by role, then joining time, then user id: everyone here joined at the same (manual)
    // instant, so the two admins follow their user ids.
    const admins = [cast.owner.id, cast.admin.id].sort().map((id) => [id, 'ADMIN']);
    expect(shown.members.map((member) => [member.userId, member.role])).toEqual([
      [cast.member.id, 'OWNER'],
      ...admins,
      [cast.moderator.id, 'MODERATOR'],
    ]);

    // The rights moved with it.
    expectError(
      await t.app.inject({ method: 'DELETE', url: `/teams/${team.id}`, headers: cast.owner.headers }),
      403,
    );
    expectError(await setRole(team, cast.owner, cast.admin, 'MEMBER'), 403);
    expect((await leave(team, cast.owner)).statusCode).toBe(200);
    expectError(await leave(team, cast.member), 409, 'OWNER_MUST_TRANSFER');
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/teams/${team.id}`,
      headers: cast.member.headers,
    });
    expect(deleted.statusCode).toBe(204);
  });

  it('refuses moderators and members (403)', async () => {
    const team = await createStaffedTeam(t.app, cast);
    expectError(await setRole(team, cast.moderator, cast.member, 'MODERATOR'), 403);
    expectError(await setRole(team, cast.member, cast.member, 'MODERATOR'), 403);
    expectError(await setRole(team, cast.moderator, cast.moderator, 'MEMBER'), 403);
  });

  it('answers 404 for a user who is not a member, and 400 for an unknown role', async () => {
    const team = await createStaffedTeam(t.app, cast);
    expectError(await setRole(team, cast.owner, cast.nonMember, 'MEMBER'), 404, 'NOT_FOUND');
    expectError(await setRole(team, cast.owner, '01900000-0000-7000-8000-000000000001', 'MEMBER'), 404);
    expectError(await setRole(team, cast.owner, cast.member, 'SUPERSTAR'), 400);
    expectError(
      await t.app.inject({
        method: 'PATCH',
        url: `/teams/${team.id}/members/${cast.member.id}`,
        headers: cast.owner.headers,
        payload: {},
      }),
      400,
    );
  });

  it('keeps exactly one owner when two hand-overs race', async () => {
    const team = await createStaffedTeam(t.app, cast);
    const responses = await Promise.all([
      setRole(team, cast.owner, cast.admin, 'OWNER'),
      setRole(team, cast.owner, cast.moderator, 'OWNER'),
      setRole(team, cast.owner, cast.member, 'OWNER'),
    ]);
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    for (const status of statuses.filter((status) => status !== 200)) expect([403, 409]).toContain(status);
    const shown = await getTeam(t.app, team.slug);
    expect(shown.members.filter((member) => member.role === 'OWNER')).toHaveLength(1);
    expect(roleOf(shown, cast.owner.id)).toBe('ADMIN');
  });
});

describe('DELETE /teams/:id/members/:memberId', () => {
  it('lets the owner remove anyone but themselves; memberCount follows', async () => {
    const team = await createStaffedTeam(t.app, cast);
    const response = await remove(team, cast.owner, cast.admin);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ message: expect.any(String) });
    const shown = await getTeam(t.app, team.slug);
    expect(roleOf(shown, cast.admin.id)).toBeUndefined();
    expect(shown.memberCount).toBe(3);
    expectError(await remove(team, cast.owner, cast.owner), 409, 'OWNER_MUST_TRANSFER');
  });

  it('lets an admin remove members and moderators, not admins or the owner', async () => {
    const team = await createStaffedTeam(t.app, cast);
    const otherAdmin = await createUser(t.app);
    await addMember(t.app, team.id, cast.owner, otherAdmin, 'ADMIN');
    expect((await remove(team, cast.admin, cast.member)).statusCode).toBe(200);
    expect((await remove(team, cast.admin, cast.moderator)).statusCode).toBe(200);
    expectError(await remove(team, cast.admin, otherAdmin), 403);
    expectError(await remove(team, cast.admin, cast.owner), 409, 'OWNER_MUST_TRANSFER');
    expect((await remove(team, cast.admin, cast.admin)).statusCode).toBe(200);
    const shown = await getTeam(t.app, team.slug);
    expect(shown.members.map((member) => member.userId).sort()).toEqual(
      [cast.owner.id, otherAdmin.id].sort(),
    );
    expect(shown.memberCount).toBe(2);
  });

  it('answers 404 for a non-member and lets a removed user be invited again', async () => {
    const team = await createStaffedTeam(t.app, cast);
    expectError(await remove(team, cast.owner, cast.nonMember), 404);
    await remove(team, cast.owner, cast.member);
    expectError(await remove(team, cast.owner, cast.member), 404);
    const mine = await t.app.inject({ method: 'GET', url: '/teams/me', headers: cast.member.headers });
    expect((mine.json() as { teams: Array<{ id: string }> }).teams.map((item) => item.id)).not.toContain(
      team.id,
    );
    const invitation = await invite(t.app, team.id, cast.owner, cast.member, 'MODERATOR');
    expect((await respond(t.app, invitation.id, cast.member, true)).statusCode).toBe(200);
    expect(roleOf(await getTeam(t.app, team.slug), cast.member.id)).toBe('MODERATOR');
  });
});

describe('DELETE /teams/:id/leave', () => {
  it('lets any member but the owner leave; memberCount follows', async () => {
    const team = await createStaffedTeam(t.app, cast);
    for (const user of [cast.member, cast.moderator, cast.admin]) {
      const response = await leave(team, user);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ message: expect.any(String) });
    }
    const shown = await getTeam(t.app, team.slug);
    expect(shown.memberCount).toBe(1);
    expect(shown.members.map((member) => member.userId)).toEqual([cast.owner.id]);
  });

  it('refuses the owner (409) and answers 404 to a non-member or a second leave', async () => {
    const team = await createStaffedTeam(t.app, cast);
    expectError(await leave(team, cast.owner), 409, 'OWNER_MUST_TRANSFER');
    expectError(await leave(team, cast.nonMember), 404);
    await leave(team, cast.member);
    expectError(await leave(team, cast.member), 404);
  });
});

describe('counters under concurrency', () => {
  it('memberCount stays exact through simultaneous accepts, leaves and removals', async () => {
    const owner = await createUser(t.app);
    const team = await createTeam(t.app, owner);
    const users = await Promise.all(Array.from({ length: 10 }, () => createUser(t.app)));
    const invitations = await Promise.all(users.map((user) => invite(t.app, team.id, owner, user)));
    const accepted = await Promise.all(
      invitations.map((invitation, i) => respond(t.app, invitation.id, users[i]!, true)),
    );
    expect(accepted.every((response) => response.statusCode === 200)).toBe(true);
    expect((await getTeam(t.app, team.slug)).memberCount).toBe(11);

    const leavers = users.slice(0, 5);
    const removed = users.slice(5);
    const responses = await Promise.all([
      ...leavers.map((user) => leave(team, user)),
      ...removed.map((user) => remove(team, owner, user)),
      // Repeats of the same removals: exactly one of each pair may count.
      ...removed.map((user) => remove(team, owner, user)),
    ]);
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 404)).toHaveLength(5);
    const shown = await getTeam(t.app, team.slug);
    expect(shown.memberCount).toBe(1);
    expect(shown.members).toHaveLength(1);
  });
});
