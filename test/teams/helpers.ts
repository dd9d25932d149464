// Team fixtures: teams built through the HTTP API, with one user per team role, and the invariants every team
// test re-checks afterwards.
import { expect } from 'vitest';
import type { App } from '../../src/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';

export type TeamPersona = 'owner' | 'admin' | 'moderator' | 'member' | 'nonMember' | 'anonymous';
export const TEAM_PERSONAS: readonly TeamPersona[] = [
  'owner',
  'admin',
  'moderator',
  'member',
  'nonMember',
  'anonymous',
];

export interface TeamBody {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  logoUrl: string | null;
  bannerUrl: string | null;
  ownerId: string;
  memberCount: number;
  resourceCount: number;
  serverCount: number;
  createdAt: string;
  updatedAt: string;
  members: Array<{
    userId: string;
    role: string;
    teamId: string;
    user: { id: string; username: string; displayName: string | null; image: string };
    joinedAt: string;
  }>;
  socialLinks: Array<{ id: string; platform: string; url: string; order: number }>;
}

/** The users who play the team roles; each test builds its own team around them. */
export interface TeamCast {
  owner: TestUser;
  admin: TestUser;
  moderator: TestUser;
  member: TestUser;
  nonMember: TestUser;
}

export async function createCast(app: App): Promise<TeamCast> {
  const [owner, admin, moderator, member, nonMember] = await Promise.all([
    createUser(app),
    createUser(app),
    createUser(app),
    createUser(app),
    createUser(app),
  ]);
  return { owner, admin, moderator, member, nonMember };
}

/** Headers for a persona; anonymous sends none. */
export function headersOf(cast: TeamCast, persona: TeamPersona): Record<string, string> {
  return persona === 'anonymous' ? {} : cast[persona].headers;
}

let slugSequence = 0;
export function uniqueSlug(prefix = 'team'): string {
  slugSequence += 1;
  return `${prefix}-${process.pid}-${slugSequence}`;
}

export async function createTeam(
  app: App,
  owner: TestUser,
  body: { name?: string; slug?: string; description?: string | null } = {},
): Promise<TeamBody> {
  const slug = body.slug ?? uniqueSlug();
  const response = await app.inject({
    method: 'POST',
    url: '/teams',
    headers: owner.headers,
    payload: {
      name: body.name ?? `Team ${slug}`,
      slug,
      ...(body.description !== undefined ? { description: body.description } : {}),
    },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as TeamBody;
}

export async function invite(
  app: App,
  teamId: string,
  by: TestUser,
  user: TestUser,
  role: 'MEMBER' | 'MODERATOR' | 'ADMIN' = 'MEMBER',
): Promise<{ id: string; expiresAt: string; status: string }> {
  const response = await app.inject({
    method: 'POST',
    url: `/teams/${teamId}/invitations`,
    headers: by.headers,
    payload: { userId: user.id, role },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as { id: string; expiresAt: string; status: string };
}

export function respond(app: App, invitationId: string, user: TestUser, accept: boolean) {
  return app.inject({
    method: 'POST',
    url: `/teams/invitations/${invitationId}/respond`,
    headers: user.headers,
    payload: { accept },
  });
}

/** Invites `user` with `role` (as the owner) and accepts. */
export async function addMember(
  app: App,
  teamId: string,
  owner: TestUser,
  user: TestUser,
  role: 'MEMBER' | 'MODERATOR' | 'ADMIN',
): Promise<void> {
  const invitation = await invite(app, teamId, owner, user, role);
  const response = await respond(app, invitation.id, user, true);
  expect(response.statusCode, response.body).toBe(200);
}

/** A fresh team in which the cast holds the roles their names say (nonMember stays outside). */
export async function createStaffedTeam(app: App, cast: TeamCast): Promise<TeamBody> {
  const team = await createTeam(app, cast.owner);
  await addMember(app, team.id, cast.owner, cast.admin, 'ADMIN');
  await addMember(app, team.id, cast.owner, cast.moderator, 'MODERATOR');
  await addMember(app, team.id, cast.owner, cast.member, 'MEMBER');
  return getTeam(app, team.slug);
}

export async function getTeam(app: App, slug: string): Promise<TeamBody> {
  const response = await app.inject({ method: 'GET', url: `/teams/slug/${slug}` });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as TeamBody;
}

export function roleOf(team: TeamBody, userId: string): string | undefined {
  return team.members.find((member) => member.userId === userId)?.role;
}

/**
 * Every team has exactly one OWNER membership, teams.owner_id names that user, and member_count equals the
 * number of memberships. Checked after every team test.
 */
export async function expectTeamInvariants(app: App): Promise<void> {
  const { db } = app.context.database;
  const [teams, members] = await Promise.all([
    db.selectFrom('teams').select(['id', 'owner_id', 'member_count']).execute(),
    db.selectFrom('team_members').select(['team_id', 'user_id', 'role']).execute(),
  ]);
  for (const team of teams) {
    const rows = members.filter((member) => member.team_id === team.id);
    const owners = rows.filter((member) => member.role === 'OWNER');
    expect(owners, `team ${team.id} must have exactly one OWNER`).toHaveLength(1);
    expect(team.owner_id, `teams.owner_id of ${team.id} must be its OWNER`).toBe(owners[0]!.user_id);
    expect(team.member_count, `member_count of ${team.id}`).toBe(rows.length);
  }
  const teamIds = new Set(teams.map((team) => team.id));
  expect(members.filter((member) => !teamIds.has(member.team_id))).toEqual([]);
}
