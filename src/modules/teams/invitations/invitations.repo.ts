import type { Kysely, Selectable, Transaction } from 'kysely';
import type { DB, TeamInvitationStatus, TeamInvitationsTable } from '../../../core/db/schema.js';

export type InvitationRow = Selectable<TeamInvitationsTable>;
type Executor = Kysely<DB> | Transaction<DB>;

export interface InvitationWithUserRow extends InvitationRow {
  username: string;
  display_name: string | null;
  image_key: string | null;
}

export interface InvitationWithTeamRow extends InvitationRow {
  team_name: string;
  team_slug: string;
  team_logo_key: string | null;
}

/**
 * PENDING in a list filter means "can still be answered", so expired invitations (which keep the stored status
 * PENDING) are left out of it; without a filter they are listed, recognisable by an expiresAt in the past.
 */
export interface InvitationFilter {
  status?: TeamInvitationStatus;
  now: string;
}

export const findInvitation = (db: Executor, id: string): Promise<InvitationRow | undefined> =>
  db.selectFrom('team_invitations').selectAll().where('id', '=', id).executeTakeFirst();

export const findPendingInvitation = (
  db: Executor,
  teamId: string,
  userId: string,
): Promise<InvitationRow | undefined> =>
  db
    .selectFrom('team_invitations')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .where('status', '=', 'PENDING')
    .executeTakeFirst();

export async function insertInvitation(db: Executor, row: InvitationRow): Promise<void> {
  await db.insertInto('team_invitations').values(row).execute();
}

/**
 * PENDING → `to`, only while the invitation is still PENDING (and, with `unexpiredAt`, not expired at that
 * time): of two concurrent answers exactly one wins.
 */
export async function closePendingInvitation(
  db: Executor,
  id: string,
  to: Exclude<TeamInvitationStatus, 'PENDING'>,
  at: string,
  unexpiredAt?: string,
): Promise<boolean> {
  let query = db
    .updateTable('team_invitations')
    .set({ status: to, responded_at: at })
    .where('id', '=', id)
    .where('status', '=', 'PENDING');
  if (unexpiredAt !== undefined) query = query.where('expires_at', '>', unexpiredAt);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export function listInvitationsOfTeam(
  db: Executor,
  teamId: string,
  filter: InvitationFilter,
): Promise<InvitationWithUserRow[]> {
  let query = db
    .selectFrom('team_invitations')
    .innerJoin('users', 'users.id', 'team_invitations.user_id')
    .selectAll('team_invitations')
    .select(['users.username', 'users.display_name', 'users.image_key'])
    .where('team_invitations.team_id', '=', teamId);
  if (filter.status !== undefined) query = query.where('team_invitations.status', '=', filter.status);
  if (filter.status === 'PENDING') query = query.where('team_invitations.expires_at', '>', filter.now);
  return query
    .orderBy('team_invitations.created_at', 'desc')
    .orderBy('team_invitations.id', 'desc')
    .execute();
}

export function listInvitationsOfUser(
  db: Executor,
  userId: string,
  filter: InvitationFilter,
): Promise<InvitationWithTeamRow[]> {
  let query = db
    .selectFrom('team_invitations')
    .innerJoin('teams', 'teams.id', 'team_invitations.team_id')
    .selectAll('team_invitations')
    .select(['teams.name as team_name', 'teams.slug as team_slug', 'teams.logo_key as team_logo_key'])
    .where('team_invitations.user_id', '=', userId);
  if (filter.status !== undefined) query = query.where('team_invitations.status', '=', filter.status);
  if (filter.status === 'PENDING') query = query.where('team_invitations.expires_at', '>', filter.now);
  return query
    .orderBy('team_invitations.created_at', 'desc')
    .orderBy('team_invitations.id', 'desc')
    .execute();
}
