// Team invitations: create, list (team side and invitee side), cancel, respond, expiry on the controllable clock,
// and concurrent answers.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/core/clock.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import {
  createCast,
  createStaffedTeam,
  createTeam,
  expectTeamInvariants,
  getTeam,
  invite,
  respond,
  roleOf,
} from './helpers.js';
import type { TeamCast } from './helpers.js';

let t: TestApp;
let cast: TeamCast;

beforeAll(async () => {
  t = await buildTestApp();
  cast = await createCast(t.app);
});
afterAll(async () => t.close());
afterEach(async () => expectTeamInvariants(t.app));

const WEEK_MS = 7 * DAY_MS;

interface TeamSideInvitation {
  id: string;
  user: { id: string; username: string; displayName: string | null; image: string };
  role: string;
  status: string;
  createdAt: string;
  expiresAt: string;
}
interface MySideInvitation {
  id: string;
  team: { id: string; name: string; slug: string; logoUrl: string | null };
  role: string;
  status: string;
  createdAt: string;
  expiresAt: string;
}

const postInvitation = (teamId: string, by: TestUser, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: `/teams/${teamId}/invitations`, headers: by.headers, payload });

async function teamInvitations(teamId: string, by: TestUser, status?: string): Promise<TeamSideInvitation[]> {
  const response = await t.app.inject({
    method: 'GET',
    url: `/teams/${teamId}/invitations${status ? `?status=${status}` : ''}`,
    headers: by.headers,
  });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { invitations: TeamSideInvitation[] }).invitations;
}

async function myInvitations(user: TestUser, status?: string): Promise<MySideInvitation[]> {
  const response = await t.app.inject({
    method: 'GET',
    url: `/teams/invitations/me${status ? `?status=${status}` : ''}`,
    headers: user.headers,
  });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { invitations: MySideInvitation[] }).invitations;
}

describe('POST /teams/:id/invitations', () => {
  it('creates a PENDING invitation that expires 7 days later', async () => {
    const team = await createTeam(t.app, cast.owner);
    const user = await createUser(t.app);
    const response = await postInvitation(team.id, cast.owner, { userId: user.id, role: 'MODERATOR' });
    expect(response.statusCode, response.body).toBe(201);
    const now = t.clock.now();
    expect(response.json()).toEqual({
      id: expect.any(String),
      teamId: team.id,
      userId: user.id,
      role: 'MODERATOR',
      status: 'PENDING',
      expiresAt: new Date(now.getTime() + WEEK_MS).toISOString(),
      createdAt: now.toISOString(),
    });
  });

  it('invites as MEMBER when no role is given, and never as OWNER (400)', async () => {
    const team = await createTeam(t.app, cast.owner);
    const user = await createUser(t.app);
    expectError(await postInvitation(team.id, cast.owner, { userId: user.id, role: 'OWNER' }), 400);
    expectError(await postInvitation(team.id, cast.owner, { userId: user.id, role: 'BOSS' }), 400);
    expectError(await postInvitation(team.id, cast.owner, { role: 'MEMBER' }), 400);
    const response = await postInvitation(team.id, cast.owner, { userId: user.id });
    expect(response.json()).toMatchObject({ role: 'MEMBER' });
  });

  it('lets the owner invite an ADMIN but an admin only MEMBER or MODERATOR', async () => {
    const team = await createStaffedTeam(t.app, cast);
    const [a, b, c] = await Promise.all([createUser(t.app), createUser(t.app), createUser(t.app)]);
    expect((await postInvitation(team.id, cast.owner, { userId: a.id, role: 'ADMIN' })).statusCode).toBe(201);
    expectError(await postInvitation(team.id, cast.admin, { userId: b.id, role: 'ADMIN' }), 403, 'FORBIDDEN');
    expect((await postInvitation(team.id, cast.admin, { userId: b.id, role: 'MODERATOR' })).statusCode).toBe(
      201,
    );
    expect((await postInvitation(team.id, cast.admin, { userId: c.id, role: 'MEMBER' })).statusCode).toBe(
      201,
    );
  });

  it('answers 404 for an unknown user', async () => {
    const team = await createTeam(t.app, cast.owner);
    expectError(
      await postInvitation(team.id, cast.owner, { userId: '01900000-0000-7000-8000-00000000abcd' }),
      404,
    );
  });

  it('refuses to invite a current member, the owner included (409)', async () => {
    const team = await createStaffedTeam(t.app, cast);
    for (const user of [cast.member, cast.admin, cast.owner]) {
      expectError(await postInvitation(team.id, cast.owner, { userId: user.id }), 409, 'ALREADY_MEMBER');
    }
  });

  it('refuses a second invitation while one is pending and unexpired (409)', async () => {
    const team = await createTeam(t.app, cast.owner);
    const user = await createUser(t.app);
    await invite(t.app, team.id, cast.owner, user);
    t.clock.advance(WEEK_MS - 1);
    expectError(
      await postInvitation(team.id, cast.owner, { userId: user.id, role: 'ADMIN' }),
      409,
      'ALREADY_INVITED',
    );
  });

  it('supersedes an expired pending invitation (the old one becomes CANCELLED)', async () => {
    const team = await createTeam(t.app, cast.owner);
    const user = await createUser(t.app);
    const old = await invite(t.app, team.id, cast.owner, user);
    t.clock.advance(WEEK_MS);
    const renewed = await invite(t.app, team.id, cast.owner, user, 'MODERATOR');
    const statuses = Object.fromEntries(
      (await teamInvitations(team.id, cast.owner)).map((invitation) => [invitation.id, invitation.status]),
    );
    expect(statuses).toEqual({ [old.id]: 'CANCELLED', [renewed.id]: 'PENDING' });
    expect((await respond(t.app, renewed.id, user, true)).statusCode).toBe(200);
  });

  it('allows a new invitation after a decline or a cancellation', async () => {
    const team = await createTeam(t.app, cast.owner);
    const user = await createUser(t.app);
    const first = await invite(t.app, team.id, cast.owner, user);
    await respond(t.app, first.id, user, false);
    const second = await invite(t.app, team.id, cast.owner, user);
    await t.app.inject({
      method: 'DELETE',
      url: `/teams/${team.id}/invitations/${second.id}`,
      headers: cast.owner.headers,
    });
    await invite(t.app, team.id, cast.owner, user);
  });

  it('lets exactly one of two simultaneous invitations of the same user through', async () => {
    const team = await createStaffedTeam(t.app, cast);
    const user = await createUser(t.app);
    const responses = await Promise.all([
      postInvitation(team.id, cast.owner, { userId: user.id }),
      postInvitation(team.id, cast.admin, { userId: user.id }),
      postInvitation(team.id, cast.owner, { userId: user.id }),
    ]);
    expect(responses.map((response) => response.statusCode).sort()).toEqual([201, 409, 409]);
    expect(
      (await teamInvitations(team.id, cast.owner, 'PENDING')).filter((i) => i.user.id === user.id),
    ).toHaveLength(1);
  });
});

describe('GET /teams/:id/invitations and GET /teams/invitations/me', () => {
  it('shows the invited user to the team and the team to the invitee, newest first', async () => {
    const team = await createStaffedTeam(t.app, cast);
    const user = await createUser(t.app);
    const other = await createUser(t.app);
    const first = await invite(t.app, team.id, cast.owner, user, 'ADMIN');
    t.clock.advance(1000);
    const second = await invite(t.app, team.id, cast.admin, other, 'MEMBER');

    // The staffed team's own (accepted) invitations are older; these two are the newest.
    const list = (await teamInvitations(team.id, cast.member)).slice(0, 2);
    expect(list.map((invitation) => invitation.id)).toEqual([second.id, first.id]);
    expect(list[1]).toEqual({
      id: first.id,
      user: { id: user.id, username: user.username, displayName: null, image: expect.any(String) },
      role: 'ADMIN',
      status: 'PENDING',
      createdAt: expect.any(String),
      expiresAt: first.expiresAt,
    });

    const mine = await myInvitations(user);
    expect(mine).toEqual([
      {
        id: first.id,
        team: { id: team.id, name: team.name, slug: team.slug, logoUrl: null },
        role: 'ADMIN',
        status: 'PENDING',
        createdAt: expect.any(String),
        expiresAt: first.expiresAt,
      },
    ]);
  });

  it('filters by status; PENDING leaves out expired invitations, which keep their stored status', async () => {
    const team = await createTeam(t.app, cast.owner);
    const [a, b, c, d] = await Promise.all([
      createUser(t.app),
      createUser(t.app),
      createUser(t.app),
      createUser(t.app),
    ]);
    const expiring = await invite(t.app, team.id, cast.owner, a);
    t.clock.advance(2 * DAY_MS);
    const accepted = await invite(t.app, team.id, cast.owner, b);
    const declined = await invite(t.app, team.id, cast.owner, c);
    const pending = await invite(t.app, team.id, cast.owner, d);
    await respond(t.app, accepted.id, b, true);
    await respond(t.app, declined.id, c, false);
    t.clock.advance(5 * DAY_MS + 1);

    const ids = async (status?: string) =>
      (await teamInvitations(team.id, cast.owner, status)).map((invitation) => invitation.id).sort();
    expect(await ids('PENDING')).toEqual([pending.id]);
    expect(await ids('ACCEPTED')).toEqual([accepted.id]);
    expect(await ids('DECLINED')).toEqual([declined.id]);
    expect(await ids('CANCELLED')).toEqual([]);
    const all = await teamInvitations(team.id, cast.owner);
    expect(all.map((invitation) => invitation.id).sort()).toEqual(
      [expiring.id, accepted.id, declined.id, pending.id].sort(),
    );
    expect(all.find((invitation) => invitation.id === expiring.id)!.status).toBe('PENDING');

    expect(await myInvitations(a, 'PENDING')).toEqual([]);
    expect((await myInvitations(a)).map((invitation) => invitation.status)).toEqual(['PENDING']);
    expect((await myInvitations(b, 'ACCEPTED')).map((invitation) => invitation.id)).toEqual([accepted.id]);
    expect(await myInvitations(b, 'PENDING')).toEqual([]);
  });

  it('refuses an unknown status (400)', async () => {
    const team = await createTeam(t.app, cast.owner);
    expectError(
      await t.app.inject({
        method: 'GET',
        url: `/teams/${team.id}/invitations?status=EXPIRED`,
        headers: cast.owner.headers,
      }),
      400,
    );
    expectError(
      await t.app.inject({
        method: 'GET',
        url: '/teams/invitations/me?status=nope',
        headers: cast.owner.headers,
      }),
      400,
    );
  });
});

describe('DELETE /teams/:id/invitations/:invitationId', () => {
  it('cancels a pending invitation; the invitee can no longer answer it', async () => {
    const team = await createStaffedTeam(t.app, cast);
    const user = await createUser(t.app);
    const invitation = await invite(t.app, team.id, cast.owner, user);
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/teams/${team.id}/invitations/${invitation.id}`,
      headers: cast.admin.headers,
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ message: expect.any(String) });
    expect((await myInvitations(user)).map((i) => i.status)).toEqual(['CANCELLED']);
    expectError(await respond(t.app, invitation.id, user, true), 409);
    expectError(
      await t.app.inject({
        method: 'DELETE',
        url: `/teams/${team.id}/invitations/${invitation.id}`,
        headers: cast.owner.headers,
      }),
      409,
      'INVALID_STATUS_TRANSITION',
    );
  });

  it('refuses to cancel an accepted or declined invitation (409)', async () => {
    const team = await createTeam(t.app, cast.owner);
    const [a, b] = await Promise.all([createUser(t.app), createUser(t.app)]);
    const accepted = await invite(t.app, team.id, cast.owner, a);
    const declined = await invite(t.app, team.id, cast.owner, b);
    await respond(t.app, accepted.id, a, true);
    await respond(t.app, declined.id, b, false);
    for (const invitation of [accepted, declined]) {
      expectError(
        await t.app.inject({
          method: 'DELETE',
          url: `/teams/${team.id}/invitations/${invitation.id}`,
          headers: cast.owner.headers,
        }),
        409,
      );
    }
  });

  it("answers 404 for another team's invitation, even to a manager of both", async () => {
    const team = await createTeam(t.app, cast.owner);
    const other = await createTeam(t.app, cast.owner);
    const user = await createUser(t.app);
    const invitation = await invite(t.app, other.id, cast.owner, user);
    expectError(
      await t.app.inject({
        method: 'DELETE',
        url: `/teams/${team.id}/invitations/${invitation.id}`,
        headers: cast.owner.headers,
      }),
      404,
    );
    expect((await myInvitations(user)).map((i) => i.status)).toEqual(['PENDING']);
  });

  it('lets an admin cancel MEMBER and MODERATOR invitations but not ADMIN ones', async () => {
    const team = await createStaffedTeam(t.app, cast);
    const [a, b] = await Promise.all([createUser(t.app), createUser(t.app)]);
    const forAdmin = await invite(t.app, team.id, cast.owner, a, 'ADMIN');
    const forModerator = await invite(t.app, team.id, cast.owner, b, 'MODERATOR');
    const cancel = (id: string, by: TestUser) =>
      t.app.inject({ method: 'DELETE', url: `/teams/${team.id}/invitations/${id}`, headers: by.headers });
    expectError(await cancel(forAdmin.id, cast.admin), 403);
    expect((await cancel(forModerator.id, cast.admin)).statusCode).toBe(200);
    expect((await cancel(forAdmin.id, cast.owner)).statusCode).toBe(200);
  });
});

describe('POST /teams/invitations/:invitationId/respond', () => {
  it('accepting adds the member with the invited role and moves memberCount', async () => {
    const team = await createTeam(t.app, cast.owner);
    const user = await createUser(t.app);
    const invitation = await invite(t.app, team.id, cast.owner, user, 'MODERATOR');
    const response = await respond(t.app, invitation.id, user, true);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      message: expect.any(String),
      teamMember: { teamId: team.id, userId: user.id, role: 'MODERATOR' },
    });
    const shown = await getTeam(t.app, team.slug);
    expect(roleOf(shown, user.id)).toBe('MODERATOR');
    expect(shown.memberCount).toBe(2);
    expect((await myInvitations(user)).map((i) => i.status)).toEqual(['ACCEPTED']);
    expect(
      (await t.app.inject({ method: 'GET', url: '/teams/me', headers: user.headers })).json(),
    ).toMatchObject({
      teams: [{ id: team.id, role: 'MODERATOR' }],
    });
  });

  it('declining records DECLINED, adds nobody and returns teamMember null', async () => {
    const team = await createTeam(t.app, cast.owner);
    const user = await createUser(t.app);
    const invitation = await invite(t.app, team.id, cast.owner, user);
    const response = await respond(t.app, invitation.id, user, false);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ message: expect.any(String), teamMember: null });
    const shown = await getTeam(t.app, team.slug);
    expect(roleOf(shown, user.id)).toBeUndefined();
    expect(shown.memberCount).toBe(1);
    expect((await myInvitations(user)).map((i) => i.status)).toEqual(['DECLINED']);
  });

  it('refuses a second answer (409)', async () => {
    const team = await createTeam(t.app, cast.owner);
    const user = await createUser(t.app);
    const invitation = await invite(t.app, team.id, cast.owner, user);
    await respond(t.app, invitation.id, user, true);
    expectError(await respond(t.app, invitation.id, user, true), 409, 'INVALID_STATUS_TRANSITION');
    expectError(await respond(t.app, invitation.id, user, false), 409);
    expect((await getTeam(t.app, team.slug)).memberCount).toBe(2);
  });

  it('can be answered until just before expiresAt, and not from expiresAt on (409)', async () => {
    const team = await createTeam(t.app, cast.owner);
    const [early, late] = await Promise.all([createUser(t.app), createUser(t.app)]);
    const earlyInvitation = await invite(t.app, team.id, cast.owner, early);
    const lateInvitation = await invite(t.app, team.id, cast.owner, late);
    t.clock.advance(WEEK_MS - 1);
    expect((await respond(t.app, earlyInvitation.id, early, true)).statusCode).toBe(200);
    t.clock.advance(1);
    expectError(await respond(t.app, lateInvitation.id, late, true), 409, 'INVITATION_EXPIRED');
    expectError(await respond(t.app, lateInvitation.id, late, false), 409, 'INVITATION_EXPIRED');
    expect(roleOf(await getTeam(t.app, team.slug), late.id)).toBeUndefined();
  });

  it("answers 404 to anyone but the invitee, the team's managers included", async () => {
    const team = await createStaffedTeam(t.app, cast);
    const user = await createUser(t.app);
    const invitation = await invite(t.app, team.id, cast.owner, user);
    for (const other of [cast.owner, cast.admin, cast.nonMember]) {
      expectError(await respond(t.app, invitation.id, other, true), 404);
    }
    expect((await myInvitations(user)).map((i) => i.status)).toEqual(['PENDING']);
  });

  it('needs a boolean accept (400)', async () => {
    const team = await createTeam(t.app, cast.owner);
    const user = await createUser(t.app);
    const invitation = await invite(t.app, team.id, cast.owner, user);
    for (const payload of [{}, { accept: 'maybe' }, { accept: [true, false] }]) {
      expectError(
        await t.app.inject({
          method: 'POST',
          url: `/teams/invitations/${invitation.id}/respond`,
          headers: user.headers,
          payload,
        }),
        400,
      );
    }
  });

  it('counts a simultaneous double accept once', async () => {
    const team = await createTeam(t.app, cast.owner);
    const user = await createUser(t.app);
    const invitation = await invite(t.app, team.id, cast.owner, user);
    const responses = await Promise.all([
      respond(t.app, invitation.id, user, true),
      respond(t.app, invitation.id, user, true),
      respond(t.app, invitation.id, user, false),
    ]);
    expect(responses.filter((response) => response.statusCode === 200)).toHaveLength(1);
    expect(responses.filter((response) => response.statusCode === 409)).toHaveLength(2);
    const memberCount = (await getTeam(t.app, team.slug)).memberCount;
    expect([1, 2]).toContain(memberCount);
  });

  it('follows many simultaneous accepts in memberCount', async () => {
    const team = await createTeam(t.app, cast.owner);
    const users = await Promise.all(Array.from({ length: 12 }, () => createUser(t.app)));
    const invitations = await Promise.all(users.map((user) => invite(t.app, team.id, cast.owner, user)));
    const responses = await Promise.all(
      invitations.map((invitation, i) => respond(t.app, invitation.id, users[i]!, true)),
    );
    expect(responses.map((response) => response.statusCode)).toEqual(users.map(() => 200));
    const shown = await getTeam(t.app, team.slug);
    expect(shown.memberCount).toBe(13);
    expect(shown.members).toHaveLength(13);
  });
});
