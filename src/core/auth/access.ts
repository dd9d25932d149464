// The one place that answers "may this caller do that?" from team-membership and ownership facts (DESIGN §4.3).
// The rules are pure functions of roles (unit-tested); createAccess only looks the facts up and applies them,
// so services never re-derive a permission inline.
import { sql } from 'kysely';
import type { Kysely, RawBuilder, SqlBool, Transaction } from 'kysely';
import { dialectOf, prepared } from '../db/prepared.js';
import type { DB, TeamRole } from '../db/schema.js';
import { forbidden, unauthorized } from '../http/errors.js';
import type { Actor } from './authenticate.js';
import { assertTeamObject } from './scopes.js';

export type { TeamRole } from '../db/schema.js';

/** Lowest to highest. */
export const TEAM_ROLES = ['MEMBER', 'MODERATOR', 'ADMIN', 'OWNER'] as const satisfies readonly TeamRole[];
/** OWNER is never handed out by invitation: ownership moves only by transfer. */
export const INVITABLE_TEAM_ROLES = ['MEMBER', 'MODERATOR', 'ADMIN'] as const satisfies readonly TeamRole[];
export type InvitableTeamRole = (typeof INVITABLE_TEAM_ROLES)[number];

const TEAM_RANK: Record<TeamRole, number> = { MEMBER: 0, MODERATOR: 1, ADMIN: 2, OWNER: 3 };

export function teamRoleRank(role: TeamRole): number {
  return TEAM_RANK[role];
}

/** Sort order for member lists: OWNER first, then ADMIN, MODERATOR, MEMBER. */
export function byTeamRoleDescending(a: TeamRole, b: TeamRole): number {
  return TEAM_RANK[b] - TEAM_RANK[a];
}

// ---------------------------------------------------------------------------------------------------------------
// Named team permissions

export type TeamPermission =
  /** Read team-internal data (the invitation list): any member. */
  | 'team.view'
  /** Edit the team, its images, social links, invitations and members: OWNER or ADMIN. */
  | 'team.manage'
  /** Delete the team: OWNER only. */
  | 'team.delete';

const MINIMUM_TEAM_ROLE: Record<TeamPermission, TeamRole> = {
  'team.view': 'MEMBER',
  'team.manage': 'ADMIN',
  'team.delete': 'OWNER',
};

/** Whether a member with `role` (null: not a member) holds `permission`. */
export function teamRoleGrants(role: TeamRole | null, permission: TeamPermission): boolean {
  return role !== null && TEAM_RANK[role] >= TEAM_RANK[MINIMUM_TEAM_ROLE[permission]];
}

/**
 * Whether a manager (OWNER or ADMIN) may act on a member or invitation currently at `targetRole`: the OWNER on
 * anyone but the OWNER; an ADMIN on MEMBER and MODERATOR only (DESIGN §8 "Teams").
 */
export function canManageTeamRole(actorRole: TeamRole, targetRole: TeamRole): boolean {
  if (actorRole === 'OWNER') return targetRole !== 'OWNER';
  if (actorRole === 'ADMIN') return targetRole === 'MEMBER' || targetRole === 'MODERATOR';
  return false;
}

export type RoleChangeDecision =
  | { outcome: 'unchanged' }
  | { outcome: 'change' }
  /** The target becomes OWNER, the acting OWNER becomes ADMIN. */
  | { outcome: 'transfer-ownership' }
  | { outcome: 'forbidden'; reason: string }
  | { outcome: 'conflict'; reason: string };

/**
 * PATCH /teams/:id/members/:memberId. There is always exactly one OWNER: only the OWNER may make someone else
 * OWNER (a transfer), and the OWNER's own role is never changed directly (409: hand ownership over instead, which
 * makes the previous OWNER an ADMIN). An ADMIN manages MEMBER and MODERATOR and may only assign those roles; an
 * ADMIN may also step down themselves (DESIGN §8 says "not *other* ADMINs").
 */
export function decideRoleChange(input: {
  actorRole: TeamRole;
  targetRole: TeamRole;
  newRole: TeamRole;
  isSelf: boolean;
}): RoleChangeDecision {
  const { actorRole, targetRole, newRole, isSelf } = input;
  if (!teamRoleGrants(actorRole, 'team.manage')) {
    return { outcome: 'forbidden', reason: 'Only the team owner or an admin can change member roles' };
  }
  if (targetRole === newRole) return { outcome: 'unchanged' };
  if (targetRole === 'OWNER') {
    return actorRole === 'OWNER'
      ? {
          outcome: 'conflict',
          reason: 'The owner role cannot be changed directly; make another member OWNER instead',
        }
      : { outcome: 'forbidden', reason: "Only the owner can change the owner's role" };
  }
  if (newRole === 'OWNER') {
    return actorRole === 'OWNER'
      ? { outcome: 'transfer-ownership' }
      : { outcome: 'forbidden', reason: 'Only the owner can hand over ownership' };
  }
  if (actorRole === 'OWNER') return { outcome: 'change' };
  // The actor is an ADMIN from here on.
  const stepsDown = isSelf && targetRole === 'ADMIN';
  if (!stepsDown && !canManageTeamRole(actorRole, targetRole)) {
    return { outcome: 'forbidden', reason: 'An admin can only manage members and moderators' };
  }
  if (newRole === 'ADMIN')
    return { outcome: 'forbidden', reason: 'Only the owner can make someone an admin' };
  return { outcome: 'change' };
}

// ---------------------------------------------------------------------------------------------------------------
// Ownership of things a user or a team owns (resources, servers): DESIGN §8 "Ownership"

export type OwnerType = 'USER' | 'TEAM';

export interface OwnerRef {
  ownerType: OwnerType;
  ownerId: string;
}

/**
 * owner: full owner rights (the user owner, or the owning team's OWNER and ADMIN).
 * member: the owning team's MODERATOR and MEMBER: contributor rights on resources, manage rights on servers.
 * none: no rights from ownership.
 */
export type OwnerRights = 'owner' | 'member' | 'none';

/** Rights that a role in the owning team gives over the team's resources and servers. */
export function ownerRightsFromTeamRole(role: TeamRole | null): OwnerRights {
  if (role === null) return 'none';
  return teamRoleGrants(role, 'team.manage') ? 'owner' : 'member';
}

/**
 * SQL for "the owner side": the row of `table` is owned by the user, or by a team the user belongs to in any role
 * (owner rights or member rights). For list filters and rules written as conditions.
 */
export function ownerSideCondition(table: 'resources' | 'servers', userId: string): RawBuilder<SqlBool> {
  const ownerType = sql.ref(`${table}.owner_type`);
  const ownerId = sql.ref(`${table}.owner_id`);
  return sql<SqlBool>`((${ownerType} = 'USER' and ${ownerId} = ${userId}) or (${ownerType} = 'TEAM' and exists (select 1 from team_members where team_members.team_id = ${ownerId} and team_members.user_id = ${userId})))`;
}

/** Creating a resource or server owned by a team needs team role ADMIN or OWNER. */
export function teamRoleCanCreateFor(role: TeamRole | null): boolean {
  return teamRoleGrants(role, 'team.manage');
}

// ---------------------------------------------------------------------------------------------------------------
// Facts and the checks built on them

type Executor = Kysely<DB> | Transaction<DB>;

export interface TeamScope {
  teamId: string;
}

export type Access = ReturnType<typeof createAccess>;

/** The one fact most checks need; prepared, since team-owned objects ask for it on every check. */
const teamRoleQuery = prepared<{ role: TeamRole }, [string, string]>(2, (db, _dialect, teamId, userId) =>
  db.selectFrom('team_members').select('role').where('team_id', '=', teamId!).where('user_id', '=', userId!),
);

export function createAccess({ db }: { db: Kysely<DB> }) {
  /** The caller's role in the team, or null when not a member. Pass `executor` to read inside a transaction. */
  async function teamRole(userId: string, teamId: string, executor: Executor = db): Promise<TeamRole | null> {
    const rows = await teamRoleQuery(executor as Kysely<DB>, dialectOf(executor), teamId, userId);
    return rows[0]?.role ?? null;
  }

  /** The caller's role in each of several teams in one query (for lists); teams without a membership are absent. */
  async function teamRoles(userId: string, teamIds: readonly string[]): Promise<Map<string, TeamRole>> {
    if (teamIds.length === 0) return new Map();
    const rows = await db
      .selectFrom('team_members')
      .select(['team_id', 'role'])
      .where('user_id', '=', userId)
      .where('team_id', 'in', teamIds)
      .execute();
    return new Map(rows.map((row) => [row.team_id, row.role]));
  }

  async function can(actor: Actor | null, permission: TeamPermission, scope: TeamScope): Promise<boolean> {
    if (actor === null) return false;
    return teamRoleGrants(await teamRole(actor.userId, scope.teamId), permission);
  }

  /**
   * 401 for an anonymous caller, 403 when the caller's team role does not grant the permission; otherwise the
   * caller's role, for rules that depend on rank. The team must already be known to exist (404 comes first).
   */
  async function authorize(
    actor: Actor | null,
    permission: TeamPermission,
    scope: TeamScope,
    executor: Executor = db,
  ): Promise<TeamRole> {
    if (actor === null) throw unauthorized();
    // A team-bound API key changes only its own team (spec/extensions.md §5).
    assertTeamObject(actor, { ownerType: 'TEAM', ownerId: scope.teamId });
    const role = await teamRole(actor.userId, scope.teamId, executor);
    if (role === null || !teamRoleGrants(role, permission)) {
      throw forbidden(
        permission === 'team.view'
          ? 'Only team members can do this'
          : permission === 'team.delete'
            ? 'Only the team owner can do this'
            : 'Only the team owner or an admin can do this',
      );
    }
    return role;
  }

  /** The rights `userId` (null: anonymous) has over something owned by `owner`. */
  async function ownerRights(userId: string | null, owner: OwnerRef): Promise<OwnerRights> {
    if (userId === null) return 'none';
    if (owner.ownerType === 'USER') return owner.ownerId === userId ? 'owner' : 'none';
    return ownerRightsFromTeamRole(await teamRole(userId, owner.ownerId));
  }

  async function canCreateForTeam(userId: string, teamId: string): Promise<boolean> {
    return teamRoleCanCreateFor(await teamRole(userId, teamId));
  }

  return { teamRole, teamRoles, can, authorize, ownerRights, canCreateForTeam };
}
