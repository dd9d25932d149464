// Team members (DESIGN §8 "Teams"): role changes, ownership transfer, removal and leaving. There is always
// exactly one OWNER, and teams.owner_id names it: every change that touches the OWNER is a set of conditional
// updates in one transaction, so a concurrent transfer or change makes the later one fail (409) instead of
// leaving two owners or none.
import type { Kysely, Transaction } from 'kysely';
import { canManageTeamRole, decideRoleChange } from '../../../core/auth/access.js';
import type { Access, TeamRole } from '../../../core/auth/access.js';
import type { Actor } from '../../../core/auth/authenticate.js';
import type { Clock } from '../../../core/clock.js';
import type { DB } from '../../../core/db/schema.js';
import { conflict, forbidden, notFound } from '../../../core/http/errors.js';
import type { MediaUrls } from '../../../core/media-urls.js';
import { recordTeamEvent } from '../team-events.js';
import { moveMemberCount, moveOwner } from '../teams.repo.js';
import type { TeamsService } from '../teams.service.js';
import { toTeamMember } from './members.mapper.js';
import type { TeamMemberView } from './members.mapper.js';
import * as repo from './members.repo.js';

const ownerMustTransfer = (what: string) =>
  conflict(`${what}: hand ownership over to another member first`, 'OWNER_MUST_TRANSFER');
const changedMeanwhile = () =>
  conflict('The membership was changed by another request at the same time; try again');

export type MembersService = ReturnType<typeof createMembersService>;

export function createMembersService(deps: {
  db: Kysely<DB>;
  clock: Clock;
  urls: MediaUrls;
  access: Access;
  teams: Pick<TeamsService, 'requireTeam'>;
}) {
  const { db, clock, urls, access, teams } = deps;

  async function requireMember(teamId: string, userId: string) {
    const member = await repo.findMember(db, teamId, userId);
    if (member === undefined) throw notFound('Team member');
    return member;
  }

  async function memberView(teamId: string, userId: string): Promise<TeamMemberView> {
    const row = await repo.findMemberWithUser(db, teamId, userId);
    if (row === undefined) throw notFound('Team member');
    return toTeamMember(row, urls);
  }

  /** Deletes a non-owner membership and moves member_count with it; removing yourself is leaving. */
  async function removeMembership(
    trx: Transaction<DB>,
    actor: Actor,
    teamId: string,
    userId: string,
  ): Promise<void> {
    if (!(await repo.deleteNonOwnerMember(trx, teamId, userId))) {
      // Gone meanwhile (404), or made OWNER by a concurrent transfer (409).
      if ((await repo.findMember(trx, teamId, userId)) === undefined) throw notFound('Team member');
      throw ownerMustTransfer('The owner cannot leave or be removed');
    }
    await moveMemberCount(trx, teamId, -1);
    await recordTeamEvent(trx, 'team.member_removed', {
      at: clock.now().toISOString(),
      actorId: actor.userId,
      teamId,
      data: { userId },
    });
  }

  async function recordRoleChange(
    trx: Transaction<DB>,
    change: {
      at: string;
      actorId: string;
      teamId: string;
      userId: string;
      fromRole: TeamRole;
      toRole: TeamRole;
    },
  ): Promise<void> {
    const { at, actorId, teamId, ...data } = change;
    await recordTeamEvent(trx, 'team.member_role_changed', { at, actorId, teamId, data });
  }

  /** Two roles change, so two events: the old owner's demotion, then the new owner's promotion. */
  async function transferOwnership(
    teamId: string,
    ownerId: string,
    target: { userId: string; role: TeamRole },
  ) {
    await db.transaction().execute(async (trx) => {
      const at = clock.now().toISOString();
      // Demote first: of two concurrent transfers, the second finds no OWNER row to demote and rolls back.
      const demoted = await repo.updateMemberRole(trx, teamId, ownerId, 'OWNER', 'ADMIN');
      const promoted =
        demoted && (await repo.updateMemberRole(trx, teamId, target.userId, target.role, 'OWNER'));
      const moved = promoted && (await moveOwner(trx, teamId, ownerId, target.userId, at));
      if (!moved) throw changedMeanwhile();
      const actorId = ownerId;
      await recordRoleChange(trx, {
        at,
        actorId,
        teamId,
        userId: ownerId,
        fromRole: 'OWNER',
        toRole: 'ADMIN',
      });
      await recordRoleChange(trx, {
        at,
        actorId,
        teamId,
        userId: target.userId,
        fromRole: target.role,
        toRole: 'OWNER',
      });
    });
  }

  return {
    /** PATCH /teams/:id/members/:memberId: the rules are decideRoleChange in core/auth/access.ts. */
    async changeRole(
      actor: Actor,
      teamId: string,
      memberId: string,
      newRole: TeamRole,
    ): Promise<TeamMemberView> {
      await teams.requireTeam(teamId);
      const actorRole = await access.authorize(actor, 'team.manage', { teamId });
      const target = await requireMember(teamId, memberId);
      const decision = decideRoleChange({
        actorRole,
        targetRole: target.role,
        newRole,
        isSelf: memberId === actor.userId,
      });
      switch (decision.outcome) {
        case 'forbidden':
          throw forbidden(decision.reason);
        case 'conflict':
          throw conflict(decision.reason, 'OWNER_MUST_TRANSFER');
        case 'transfer-ownership':
          await transferOwnership(teamId, actor.userId, { userId: memberId, role: target.role });
          break;
        case 'change':
          await db.transaction().execute(async (trx) => {
            if (!(await repo.updateMemberRole(trx, teamId, memberId, target.role, newRole)))
              throw changedMeanwhile();
            await recordRoleChange(trx, {
              at: clock.now().toISOString(),
              actorId: actor.userId,
              teamId,
              userId: memberId,
              fromRole: target.role,
              toRole: newRole,
            });
          });
          break;
        case 'unchanged':
          break;
      }
      return memberView(teamId, memberId);
    },

    /** Owner or admin under the same rank rule; the OWNER cannot be removed (409). */
    async remove(actor: Actor, teamId: string, memberId: string): Promise<void> {
      await teams.requireTeam(teamId);
      const actorRole = await access.authorize(actor, 'team.manage', { teamId });
      const target = await requireMember(teamId, memberId);
      if (target.role === 'OWNER') throw ownerMustTransfer('The owner cannot be removed');
      // Removing yourself is leaving, which every member may do.
      if (memberId !== actor.userId && !canManageTeamRole(actorRole, target.role)) {
        throw forbidden('An admin can only remove members and moderators');
      }
      await db.transaction().execute((trx) => removeMembership(trx, actor, teamId, memberId));
    },

    /** Any member but the OWNER, who must hand ownership over first (409); a non-member gets 404. */
    async leave(actor: Actor, teamId: string): Promise<void> {
      await teams.requireTeam(teamId);
      const member = await requireMember(teamId, actor.userId);
      if (member.role === 'OWNER') throw ownerMustTransfer('The owner cannot leave the team');
      await db.transaction().execute((trx) => removeMembership(trx, actor, teamId, actor.userId));
    },
  };
}
