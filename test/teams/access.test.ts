// core/auth/access.ts: the pure role rules (table-driven) and the fact lookups built on them, including the
// ownership helper the resources and servers modules will use (DESIGN §8 "Ownership").
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  TEAM_ROLES,
  canManageTeamRole,
  createAccess,
  decideRoleChange,
  ownerRightsFromTeamRole,
  teamRoleCanCreateFor,
  teamRoleGrants,
  teamRoleRank,
} from '../../src/core/auth/access.js';
import type { Access, TeamPermission, TeamRole } from '../../src/core/auth/access.js';
import type { Actor } from '../../src/core/auth/authenticate.js';
import { AppError } from '../../src/core/http/errors.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createCast, createStaffedTeam, expectTeamInvariants } from './helpers.js';
import type { TeamBody, TeamCast, TeamPersona } from './helpers.js';

describe('role rules (pure)', () => {
  it('ranks MEMBER < MODERATOR < ADMIN < OWNER', () => {
    expect(TEAM_ROLES.map(teamRoleRank)).toEqual([0, 1, 2, 3]);
  });

  const GRANTS: Array<[TeamRole | null, TeamPermission, boolean]> = [
    [null, 'team.view', false],
    ['MEMBER', 'team.view', true],
    ['MODERATOR', 'team.view', true],
    ['ADMIN', 'team.view', true],
    ['OWNER', 'team.view', true],
    [null, 'team.manage', false],
    ['MEMBER', 'team.manage', false],
    ['MODERATOR', 'team.manage', false],
    ['ADMIN', 'team.manage', true],
    ['OWNER', 'team.manage', true],
    [null, 'team.delete', false],
    ['MEMBER', 'team.delete', false],
    ['MODERATOR', 'team.delete', false],
    ['ADMIN', 'team.delete', false],
    ['OWNER', 'team.delete', true],
  ];
  it.each(GRANTS)('%s holds %s: %s', (role, permission, expected) => {
    expect(teamRoleGrants(role, permission)).toBe(expected);
  });

  const MANAGES: Array<[TeamRole, TeamRole, boolean]> = TEAM_ROLES.flatMap((actor) =>
    TEAM_ROLES.map((target): [TeamRole, TeamRole, boolean] => [
      actor,
      target,
      (actor === 'OWNER' && target !== 'OWNER') ||
        (actor === 'ADMIN' && (target === 'MEMBER' || target === 'MODERATOR')),
    ]),
  );
  it.each(MANAGES)('%s manages %s: %s', (actor, target, expected) => {
    expect(canManageTeamRole(actor, target)).toBe(expected);
  });

  const CHANGES: Array<[TeamRole, TeamRole, TeamRole, boolean, string]> = [
    // actor, target's role, new role, acting on self, outcome
    ['MEMBER', 'MEMBER', 'MODERATOR', true, 'forbidden'],
    ['MODERATOR', 'MEMBER', 'MODERATOR', false, 'forbidden'],
    ['OWNER', 'MEMBER', 'MODERATOR', false, 'change'],
    ['OWNER', 'MODERATOR', 'ADMIN', false, 'change'],
    ['OWNER', 'ADMIN', 'MEMBER', false, 'change'],
    ['OWNER', 'ADMIN', 'OWNER', false, 'transfer-ownership'],
    ['OWNER', 'MEMBER', 'OWNER', false, 'transfer-ownership'],
    ['OWNER', 'OWNER', 'ADMIN', true, 'conflict'],
    ['OWNER', 'OWNER', 'OWNER', true, 'unchanged'],
    ['OWNER', 'MEMBER', 'MEMBER', false, 'unchanged'],
    ['ADMIN', 'MEMBER', 'MODERATOR', false, 'change'],
    ['ADMIN', 'MODERATOR', 'MEMBER', false, 'change'],
    ['ADMIN', 'MEMBER', 'ADMIN', false, 'forbidden'],
    ['ADMIN', 'MEMBER', 'OWNER', false, 'forbidden'],
    ['ADMIN', 'ADMIN', 'MEMBER', false, 'forbidden'],
    ['ADMIN', 'OWNER', 'ADMIN', false, 'forbidden'],
    ['ADMIN', 'ADMIN', 'MODERATOR', true, 'change'],
    ['ADMIN', 'ADMIN', 'OWNER', true, 'forbidden'],
  ];
  it.each(CHANGES)(
    '%s changing a %s to %s (self: %s) → %s',
    (actorRole, targetRole, newRole, isSelf, outcome) => {
      expect(decideRoleChange({ actorRole, targetRole, newRole, isSelf }).outcome).toBe(outcome);
    },
  );

  it('gives owner rights to OWNER and ADMIN, member rights to MODERATOR and MEMBER', () => {
    expect(TEAM_ROLES.map(ownerRightsFromTeamRole)).toEqual(['member', 'member', 'owner', 'owner']);
    expect(ownerRightsFromTeamRole(null)).toBe('none');
  });

  it('lets only ADMIN and OWNER create things for the team', () => {
    expect(TEAM_ROLES.map(teamRoleCanCreateFor)).toEqual([false, false, true, true]);
    expect(teamRoleCanCreateFor(null)).toBe(false);
  });
});

describe('createAccess (facts from the database)', () => {
  let t: TestApp;
  let cast: TeamCast;
  let team: TeamBody;
  let access: Access;

  beforeAll(async () => {
    t = await buildTestApp();
    cast = await createCast(t.app);
    team = await createStaffedTeam(t.app, cast);
    access = createAccess({ db: t.app.context.database.db });
  });
  afterAll(async () => t.close());
  afterEach(async () => expectTeamInvariants(t.app));

  const actorOf = (persona: Exclude<TeamPersona, 'anonymous'>): Actor => ({
    userId: cast[persona].id,
    role: 'USER',
    credential: { kind: 'api_key', id: 'test' },
  });

  it('reads team roles one at a time and in batches', async () => {
    expect(await access.teamRole(cast.admin.id, team.id)).toBe('ADMIN');
    expect(await access.teamRole(cast.nonMember.id, team.id)).toBeNull();
    const roles = await access.teamRoles(cast.moderator.id, [team.id, 'no-such-team']);
    expect([...roles.entries()]).toEqual([[team.id, 'MODERATOR']]);
    expect((await access.teamRoles(cast.moderator.id, [])).size).toBe(0);
  });

  it('answers can() and throws 401 / 403 from authorize()', async () => {
    expect(await access.can(actorOf('member'), 'team.view', { teamId: team.id })).toBe(true);
    expect(await access.can(actorOf('member'), 'team.manage', { teamId: team.id })).toBe(false);
    expect(await access.can(null, 'team.view', { teamId: team.id })).toBe(false);
    expect(await access.authorize(actorOf('owner'), 'team.delete', { teamId: team.id })).toBe('OWNER');
    await expect(
      access.authorize(actorOf('admin'), 'team.delete', { teamId: team.id }),
    ).rejects.toMatchObject({
      statusCode: 403,
      code: 'FORBIDDEN',
    });
    await expect(access.authorize(null, 'team.view', { teamId: team.id })).rejects.toBeInstanceOf(AppError);
    await expect(access.authorize(null, 'team.view', { teamId: team.id })).rejects.toMatchObject({
      statusCode: 401,
    });
  });

  it('tells owner and member rights over things owned by a user or a team', async () => {
    const teamOwned = { ownerType: 'TEAM' as const, ownerId: team.id };
    expect(await access.ownerRights(cast.owner.id, teamOwned)).toBe('owner');
    expect(await access.ownerRights(cast.admin.id, teamOwned)).toBe('owner');
    expect(await access.ownerRights(cast.moderator.id, teamOwned)).toBe('member');
    expect(await access.ownerRights(cast.member.id, teamOwned)).toBe('member');
    expect(await access.ownerRights(cast.nonMember.id, teamOwned)).toBe('none');
    expect(await access.ownerRights(null, teamOwned)).toBe('none');

    const userOwned = { ownerType: 'USER' as const, ownerId: cast.member.id };
    expect(await access.ownerRights(cast.member.id, userOwned)).toBe('owner');
    expect(await access.ownerRights(cast.owner.id, userOwned)).toBe('none');
  });

  it('lets team ADMIN and OWNER create for the team', async () => {
    expect(await access.canCreateForTeam(cast.owner.id, team.id)).toBe(true);
    expect(await access.canCreateForTeam(cast.admin.id, team.id)).toBe(true);
    expect(await access.canCreateForTeam(cast.moderator.id, team.id)).toBe(false);
    expect(await access.canCreateForTeam(cast.member.id, team.id)).toBe(false);
    expect(await access.canCreateForTeam(cast.nonMember.id, team.id)).toBe(false);
  });
});
