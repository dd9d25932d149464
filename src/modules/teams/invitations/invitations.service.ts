// Team invitations (DESIGN §8 "Teams"): PENDING on creation, valid 7 days; the invitee accepts or declines, a
// manager cancels. Every answer is a conditional PENDING → X update, so concurrent answers cannot both win.
import type { Kysely } from 'kysely';
import { canManageTeamRole } from '../../../core/auth/access.js';
import type { Access, InvitableTeamRole } from '../../../core/auth/access.js';
import type { Actor } from '../../../core/auth/authenticate.js';
import { DAY_MS } from '../../../core/clock.js';
import type { Clock } from '../../../core/clock.js';
import { isUniqueViolation } from '../../../core/db/dialect.js';
import type { DB, TeamInvitationStatus } from '../../../core/db/schema.js';
import { conflict, forbidden, invalidTransition, notFound } from '../../../core/http/errors.js';
import { newId } from '../../../core/ids.js';
import type { MediaUrls } from '../../../core/media-urls.js';
import { findUserById } from '../../users/users.repo.js';
import { findMember, insertMember } from '../members/members.repo.js';
import { recordTeamEvent } from '../team-events.js';
import { moveMemberCount } from '../teams.repo.js';
import type { TeamsService } from '../teams.service.js';
import { toInvitation, toMyInvitation, toTeamInvitation } from './invitations.mapper.js';
import * as repo from './invitations.repo.js';
import type { InvitationRow } from './invitations.repo.js';

export const INVITATION_LIFETIME_MS = 7 * DAY_MS;

const alreadyInvited = () =>
  conflict('This user already has a pending invitation to the team', 'ALREADY_INVITED');
const alreadyMember = () => conflict('This user is already a member of the team', 'ALREADY_MEMBER');
const expired = () => conflict('This invitation has expired', 'INVITATION_EXPIRED');

export type InvitationsService = ReturnType<typeof createInvitationsService>;

export function createInvitationsService(deps: {
  db: Kysely<DB>;
  clock: Clock;
  urls: MediaUrls;
  access: Access;
  teams: Pick<TeamsService, 'requireTeam'>;
}) {
  const { db, clock, urls, access, teams } = deps;

  const isExpired = (row: InvitationRow, now: Date) => new Date(row.expires_at).getTime() <= now.getTime();

  return {
    /** Owner or admin; an admin may invite MEMBER or MODERATOR only. */
    async invite(actor: Actor, teamId: string, input: { userId: string; role: InvitableTeamRole }) {
      await teams.requireTeam(teamId);
      const actorRole = await access.authorize(actor, 'team.manage', { teamId });
      if (!canManageTeamRole(actorRole, input.role)) {
        throw forbidden('An admin can only invite members and moderators');
      }
      const invitee = await findUserById(db, input.userId);
      if (invitee === undefined || invitee.status === 'BANNED') throw notFound('User');

      const now = clock.now();
      const row: InvitationRow = {
        id: newId(),
        team_id: teamId,
        user_id: input.userId,
        invited_by: actor.userId,
        role: input.role,
        status: 'PENDING',
        expires_at: new Date(now.getTime() + INVITATION_LIFETIME_MS).toISOString(),
        created_at: now.toISOString(),
        responded_at: null,
      };
      try {
        await db.transaction().execute(async (trx) => {
          if ((await findMember(trx, teamId, input.userId)) !== undefined) throw alreadyMember();
          const pending = await repo.findPendingInvitation(trx, teamId, input.userId);
          if (pending !== undefined) {
            if (!isExpired(pending, now)) throw alreadyInvited();
            // An expired invitation can no longer be answered; the new one supersedes it.
            await repo.closePendingInvitation(trx, pending.id, 'CANCELLED', now.toISOString());
          }
          await repo.insertInvitation(trx, row);
          await recordTeamEvent(trx, 'team.invitation_created', {
            at: row.created_at,
            actorId: actor.userId,
            teamId,
            data: { invitationId: row.id, inviteeId: row.user_id, role: row.role },
            audienceUserId: row.user_id,
          });
        });
      } catch (error) {
        // Two managers invited the same user at the same moment: the one-pending index let only one through.
        if (isUniqueViolation(error)) throw alreadyInvited();
        throw error;
      }
      return toInvitation(row);
    },

    /** Any member of the team. */
    async listForTeam(actor: Actor, teamId: string, status: TeamInvitationStatus | undefined) {
      await teams.requireTeam(teamId);
      await access.authorize(actor, 'team.view', { teamId });
      const rows = await repo.listInvitationsOfTeam(db, teamId, {
        ...(status !== undefined ? { status } : {}),
        now: clock.now().toISOString(),
      });
      return rows.map((row) => toTeamInvitation(row, urls));
    },

    async listMine(userId: string, status: TeamInvitationStatus | undefined) {
      const rows = await repo.listInvitationsOfUser(db, userId, {
        ...(status !== undefined ? { status } : {}),
        now: clock.now().toISOString(),
      });
      return rows.map((row) => toMyInvitation(row, urls));
    },

    /**
     * Owner or admin, within the admin rank rule; only a PENDING invitation can be cancelled. No event: the
     * invitee did not respond, and team.invitation_responded only tells ACCEPTED or DECLINED.
     */
    async cancel(actor: Actor, teamId: string, invitationId: string): Promise<void> {
      await teams.requireTeam(teamId);
      const actorRole = await access.authorize(actor, 'team.manage', { teamId });
      const invitation = await repo.findInvitation(db, invitationId);
      // An invitation of another team is as unknown here as a missing one (DESIGN §11).
      if (invitation === undefined || invitation.team_id !== teamId) throw notFound('Invitation');
      if (!canManageTeamRole(actorRole, invitation.role)) {
        throw forbidden('An admin can only cancel invitations for members and moderators');
      }
      if (!(await repo.closePendingInvitation(db, invitationId, 'CANCELLED', clock.now().toISOString()))) {
        throw invalidTransition(
          `Only a pending invitation can be cancelled; this one is ${invitation.status}`,
        );
      }
    },

    /**
     * Only the invitee may answer (anyone else: 404, the invitation is not theirs to see). Accepting adds the
     * membership with the invited role and moves member_count in the same transaction, and records
     * team.member_added after team.invitation_responded.
     */
    async respond(actor: Actor, invitationId: string, accept: boolean) {
      const invitation = await repo.findInvitation(db, invitationId);
      if (invitation === undefined || invitation.user_id !== actor.userId) throw notFound('Invitation');
      if (invitation.status !== 'PENDING') {
        throw invalidTransition(`This invitation was already answered or cancelled (${invitation.status})`);
      }
      const now = clock.now();
      if (isExpired(invitation, now)) throw expired();
      const at = now.toISOString();
      await db.transaction().execute(async (trx) => {
        const closed = await repo.closePendingInvitation(
          trx,
          invitationId,
          accept ? 'ACCEPTED' : 'DECLINED',
          at,
          at,
        );
        if (!closed) throw invalidTransition('This invitation was already answered or cancelled');
        const event = { at, actorId: actor.userId, teamId: invitation.team_id };
        await recordTeamEvent(trx, 'team.invitation_responded', {
          ...event,
          data: { invitationId, inviteeId: actor.userId, response: accept ? 'ACCEPTED' : 'DECLINED' },
          audienceUserId: actor.userId,
        });
        if (!accept) return;
        const added = await insertMember(trx, {
          team_id: invitation.team_id,
          user_id: actor.userId,
          role: invitation.role,
          created_at: at,
        });
        if (!added) throw alreadyMember();
        await moveMemberCount(trx, invitation.team_id, 1);
        await recordTeamEvent(trx, 'team.member_added', {
          ...event,
          data: { userId: actor.userId, role: invitation.role },
        });
      });
      return accept
        ? {
            message: 'Invitation accepted: you are now a member of the team',
            teamMember: { teamId: invitation.team_id, userId: actor.userId, role: invitation.role },
          }
        : { message: 'Invitation declined', teamMember: null };
    },
  };
}
