import type { Kysely, Selectable, Transaction } from 'kysely';
import type { DB, TeamMembersTable, TeamRole } from '../../../core/db/schema.js';

export type MemberRow = Selectable<TeamMembersTable>;
type Executor = Kysely<DB> | Transaction<DB>;

/** A membership with the user fields a member view shows. */
export interface MemberWithUserRow extends MemberRow {
  username: string;
  display_name: string | null;
  image_key: string | null;
}

function membersWithUsers(db: Executor) {
  return db
    .selectFrom('team_members')
    .innerJoin('users', 'users.id', 'team_members.user_id')
    .select([
      'team_members.team_id',
      'team_members.user_id',
      'team_members.role',
      'team_members.created_at',
      'users.username',
      'users.display_name',
      'users.image_key',
    ]);
}

/** Every member of a team with their user, in one query; the caller orders by role rank. */
export function listMembers(db: Executor, teamId: string): Promise<MemberWithUserRow[]> {
  return membersWithUsers(db)
    .where('team_members.team_id', '=', teamId)
    .orderBy('team_members.created_at')
    .orderBy('team_members.user_id')
    .execute();
}

export function findMemberWithUser(
  db: Executor,
  teamId: string,
  userId: string,
): Promise<MemberWithUserRow | undefined> {
  return membersWithUsers(db)
    .where('team_members.team_id', '=', teamId)
    .where('team_members.user_id', '=', userId)
    .executeTakeFirst();
}

export function findMember(db: Executor, teamId: string, userId: string): Promise<MemberRow | undefined> {
  return db
    .selectFrom('team_members')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/** Inserts the membership; false when the user already was a member. */
export async function insertMember(db: Executor, row: MemberRow): Promise<boolean> {
  const result = await db
    .insertInto('team_members')
    .values(row)
    .onConflict((oc) => oc.columns(['team_id', 'user_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/**
 * Changes a role only if it still is `from`: a concurrent change of the same member (or a concurrent ownership
 * transfer) makes this a no-op that the caller reports as a conflict, instead of silently overwriting it.
 */
export async function updateMemberRole(
  db: Executor,
  teamId: string,
  userId: string,
  from: TeamRole,
  to: TeamRole,
): Promise<boolean> {
  const result = await db
    .updateTable('team_members')
    .set({ role: to })
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .where('role', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Removes a membership unless it is the OWNER's; false when nothing was removed. */
export async function deleteNonOwnerMember(db: Executor, teamId: string, userId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('team_members')
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .where('role', '!=', 'OWNER')
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export interface UserTeamRow {
  id: string;
  name: string;
  slug: string;
  logo_key: string | null;
  role: TeamRole;
}

/** The teams a user belongs to, with their role, by team name. */
export function listTeamsOfUser(db: Executor, userId: string): Promise<UserTeamRow[]> {
  return db
    .selectFrom('team_members')
    .innerJoin('teams', 'teams.id', 'team_members.team_id')
    .select(['teams.id', 'teams.name', 'teams.slug', 'teams.logo_key', 'team_members.role'])
    .where('team_members.user_id', '=', userId)
    .orderBy('teams.name')
    .orderBy('teams.id')
    .execute();
}
