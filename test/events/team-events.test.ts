// team.* events (spec/extensions.md §1.1): memberships, role changes and invitations through the HTTP API each
// record their event in the transaction of the change; the subject is the (public) team, and invitation events
// also name the invitee as their audience.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { addMember, createTeam, invite, respond } from '../teams/helpers.js';
import type { TeamBody } from '../teams/helpers.js';
import { eventRows, withTableAway } from './helpers/event-rows.js';
import type { EventRows } from './helpers/event-rows.js';

let t: TestApp;
let owner: TestUser;
let admin: TestUser;
let member: TestUser;
let invitee: TestUser;
let recorded: EventRows;

beforeAll(async () => {
  t = await buildTestApp();
  [owner, admin, member, invitee] = await Promise.all([
    createUser(t.app),
    createUser(t.app),
    createUser(t.app),
    createUser(t.app),
  ]);
  recorded = eventRows(t.app);
});
afterAll(async () => t.close());

/** The events recorded about a team since `count` of them existed. */
async function eventsSince(teamId: string, count: number) {
  return (await recorded.where({ subjectId: teamId })).slice(count);
}

const now = () => t.clock.now().toISOString();

const teamPlacement = (teamId: string, audience: 'SUBJECT' | 'INVITATION' = 'SUBJECT') => ({
  subject_kind: 'team',
  subject_id: teamId,
  resource_id: null,
  version_id: null,
  server_id: null,
  team_id: teamId,
  user_id: null,
  audience,
  subject_public: true,
});

/** A team of owner with admin (ADMIN) and member (MEMBER). */
async function staffedTeam(): Promise<TeamBody> {
  const team = await createTeam(t.app, owner);
  await addMember(t.app, team.id, owner, admin, 'ADMIN');
  await addMember(t.app, team.id, owner, member, 'MEMBER');
  return team;
}

function changeRole(team: TeamBody, by: TestUser, user: TestUser, role: string) {
  return t.app.inject({
    method: 'PATCH',
    url: `/teams/${team.id}/members/${user.id}`,
    headers: by.headers,
    payload: { role },
  });
}

describe('team.member_added', () => {
  it('records the creator joining as OWNER when the team is created', async () => {
    t.clock.advance(60_000);
    const team = await createTeam(t.app, owner);
    const [event, ...others] = await recorded.where({ subjectId: team.id });
    expect(others).toEqual([]);
    expect(event).toMatchObject({
      type: 'team.member_added',
      created_at: now(),
      actor_id: owner.id,
      actor_username: owner.username,
      data: { userId: owner.id, role: 'OWNER' },
      audience_user_id: null,
      ...teamPlacement(team.id),
    });
  });
});

describe('invitations', () => {
  it('records team.invitation_created with the invitee as its audience', async () => {
    const team = await createTeam(t.app, owner);
    t.clock.advance(60_000);
    const invitation = await invite(t.app, team.id, owner, invitee, 'MODERATOR');
    const [created] = await recorded.where({ subjectId: team.id, type: 'team.invitation_created' });
    expect(await recorded.where({ subjectId: team.id, type: 'team.invitation_created' })).toHaveLength(1);
    expect(created).toMatchObject({
      created_at: now(),
      actor_id: owner.id,
      data: { invitationId: invitation.id, inviteeId: invitee.id, role: 'MODERATOR' },
      audience_user_id: invitee.id,
      ...teamPlacement(team.id, 'INVITATION'),
    });
  });

  it('records an accepted invitation, then the new member', async () => {
    const team = await createTeam(t.app, owner);
    const invitation = await invite(t.app, team.id, owner, invitee, 'MEMBER');
    const before = (await recorded.where({ subjectId: team.id })).length;
    t.clock.advance(60_000);
    expect((await respond(t.app, invitation.id, invitee, true)).statusCode).toBe(200);
    const [responded, added, ...others] = await eventsSince(team.id, before);
    expect(others).toEqual([]);
    expect(responded).toMatchObject({
      type: 'team.invitation_responded',
      created_at: now(),
      actor_id: invitee.id,
      data: { invitationId: invitation.id, inviteeId: invitee.id, response: 'ACCEPTED' },
      audience_user_id: invitee.id,
      ...teamPlacement(team.id, 'INVITATION'),
    });
    expect(added).toMatchObject({
      type: 'team.member_added',
      created_at: now(),
      actor_id: invitee.id,
      data: { userId: invitee.id, role: 'MEMBER' },
      audience_user_id: null,
      ...teamPlacement(team.id),
    });
  });

  it('records a declined invitation, and no member', async () => {
    const team = await createTeam(t.app, owner);
    const invitation = await invite(t.app, team.id, owner, invitee);
    const before = (await recorded.where({ subjectId: team.id })).length;
    expect((await respond(t.app, invitation.id, invitee, false)).statusCode).toBe(200);
    const events = await eventsSince(team.id, before);
    expect(events.map((event) => [event.type, event.data])).toEqual([
      [
        'team.invitation_responded',
        { invitationId: invitation.id, inviteeId: invitee.id, response: 'DECLINED' },
      ],
    ]);
  });

  it('records nothing for a cancelled invitation', async () => {
    const team = await createTeam(t.app, owner);
    const invitation = await invite(t.app, team.id, owner, invitee);
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/teams/${team.id}/invitations/${invitation.id}`,
      headers: owner.headers,
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(await recorded.types({ subjectId: team.id })).toEqual([
      'team.member_added',
      'team.invitation_created',
    ]);
  });

  it('records nothing when the acceptance fails after its first event was written', async () => {
    const team = await createTeam(t.app, owner);
    const invitation = await invite(t.app, team.id, owner, invitee);
    // The membership is written after team.invitation_responded: its failure must take that event back.
    await withTableAway(t.app, 'team_members', async () => {
      expect((await respond(t.app, invitation.id, invitee, true)).statusCode).toBe(500);
    });
    const row = await t.app.context.database.db
      .selectFrom('team_invitations')
      .select('status')
      .where('id', '=', invitation.id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('PENDING');
    expect(await recorded.types({ subjectId: team.id })).toEqual([
      'team.member_added',
      'team.invitation_created',
    ]);
  });
});

describe('team.member_role_changed', () => {
  it('records a role change with the old and the new role', async () => {
    const team = await staffedTeam();
    const before = (await recorded.where({ subjectId: team.id })).length;
    t.clock.advance(60_000);
    expect((await changeRole(team, admin, member, 'MODERATOR')).statusCode).toBe(200);
    const events = await eventsSince(team.id, before);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'team.member_role_changed',
      created_at: now(),
      actor_id: admin.id,
      data: { userId: member.id, fromRole: 'MEMBER', toRole: 'MODERATOR' },
      ...teamPlacement(team.id),
    });
  });

  it('records nothing when the role asked for is the one held', async () => {
    const team = await staffedTeam();
    const before = (await recorded.where({ subjectId: team.id })).length;
    expect((await changeRole(team, owner, member, 'MEMBER')).statusCode).toBe(200);
    expect(await eventsSince(team.id, before)).toEqual([]);
  });

  it('records both roles an ownership transfer changes', async () => {
    const team = await staffedTeam();
    const before = (await recorded.where({ subjectId: team.id })).length;
    expect((await changeRole(team, owner, admin, 'OWNER')).statusCode).toBe(200);
    const events = await eventsSince(team.id, before);
    expect(events.map((event) => [event.type, event.actor_id, event.data])).toEqual([
      ['team.member_role_changed', owner.id, { userId: owner.id, fromRole: 'OWNER', toRole: 'ADMIN' }],
      ['team.member_role_changed', owner.id, { userId: admin.id, fromRole: 'ADMIN', toRole: 'OWNER' }],
    ]);
  });
});

describe('team.member_removed', () => {
  it('records a member removed by a manager', async () => {
    const team = await staffedTeam();
    const before = (await recorded.where({ subjectId: team.id })).length;
    t.clock.advance(60_000);
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/teams/${team.id}/members/${member.id}`,
      headers: admin.headers,
    });
    expect(response.statusCode, response.body).toBe(200);
    const events = await eventsSince(team.id, before);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'team.member_removed',
      created_at: now(),
      actor_id: admin.id,
      data: { userId: member.id },
      ...teamPlacement(team.id),
    });
  });

  it('records a member who leaves, with the member as the actor', async () => {
    const team = await staffedTeam();
    const before = (await recorded.where({ subjectId: team.id })).length;
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/teams/${team.id}/leave`,
      headers: member.headers,
    });
    expect(response.statusCode, response.body).toBe(200);
    const events = await eventsSince(team.id, before);
    expect(events.map((event) => [event.type, event.actor_id, event.data])).toEqual([
      ['team.member_removed', member.id, { userId: member.id }],
    ]);
  });
});
