// Who may see and do what with a game server (DESIGN §8 "Servers" and "Ownership"). The rules are a pure
// function of the caller's standing (unit-tested); createServerAccess looks the facts up through the ownership
// helpers of access.ts and applies them, so services never re-derive a permission inline.
//
//   server.view      APPROVED: everyone. Otherwise the owner side (the user owner, any member of the owning
//                    team) and platform MODERATOR+; to anyone else the server does not exist (404).
//   server.manage    edit, images, social links, description images, status reports: the user owner or any
//                    member of the owning team ("server owners and team members manage servers").
//   server.delete    the user owner, or the owning team's OWNER or ADMIN (owner rights).
//   server.transfer  the current owner: the user owner, or the owning team's OWNER. A team ADMIN may delete a
//                    team server but not give it away, since handing it over is the team's decision.
// Moderation (approve, reject, suspend) is a platform role gate (requireRole('MODERATOR')) on the routes.
import type { Kysely, Transaction } from 'kysely';
import type { DB, Role, ServerStatus } from '../db/schema.js';
import { forbidden, notFound, unauthorized } from '../http/errors.js';
import { ownerRightsFromTeamRole } from './access.js';
import type { Access, OwnerRef, OwnerRights, TeamRole } from './access.js';
import type { Actor } from './authenticate.js';
import { hasRank } from './roles.js';
import { assertTeamObject } from './scopes.js';

export type ServerPermission = 'server.view' | 'server.manage' | 'server.delete' | 'server.transfer';

/** What a permission decision needs to know about a server. */
export interface ServerFacts extends OwnerRef {
  id: string;
  status: ServerStatus;
}

/** The caller's relation to one server. */
export interface ServerStanding {
  /** Platform role; null when anonymous. */
  platformRole: Role | null;
  /** From the ownership rules of access.ts: owner (user owner, team OWNER/ADMIN), member (team MODERATOR/MEMBER). */
  rights: OwnerRights;
  /** The caller's role in the owning team (null for user-owned servers or non-members). */
  teamRole: TeamRole | null;
  approved: boolean;
}

/** Whether a caller with this standing holds the permission. */
export function serverPermits(standing: ServerStanding, permission: ServerPermission): boolean {
  const ownerSide = standing.rights !== 'none';
  switch (permission) {
    case 'server.view':
      return (
        standing.approved ||
        ownerSide ||
        (standing.platformRole !== null && hasRank(standing.platformRole, 'MODERATOR'))
      );
    case 'server.manage':
      return ownerSide;
    case 'server.delete':
      return standing.rights === 'owner';
    case 'server.transfer':
      // Owner rights of a team server also cover its ADMINs; giving the server away is for the OWNER alone.
      return standing.rights === 'owner' && (standing.teamRole === null || standing.teamRole === 'OWNER');
  }
}

const DENIED: Record<Exclude<ServerPermission, 'server.view'>, string> = {
  'server.manage': 'Only the server owner or a member of the owning team can do this',
  'server.delete': "Only the server owner, or the owning team's owner or an admin, can delete this server",
  'server.transfer': "Only the server's owner (for a team server, the team owner) can transfer it",
};

/** Whether a caller sees the non-approved servers of an owner's list (owner side or MODERATOR+). */
export function seesAllServersOf(platformRole: Role | null, rights: OwnerRights): boolean {
  return rights !== 'none' || (platformRole !== null && hasRank(platformRole, 'MODERATOR'));
}

type Executor = Kysely<DB> | Transaction<DB>;

export type ServerAccess = ReturnType<typeof createServerAccess>;

export function createServerAccess({ db, access }: { db: Kysely<DB>; access: Access }) {
  async function standing(actor: Actor | null, server: ServerFacts): Promise<ServerStanding> {
    const approved = server.status === 'APPROVED';
    if (actor === null) return { platformRole: null, rights: 'none', teamRole: null, approved };
    if (server.ownerType === 'USER') {
      return {
        platformRole: actor.role,
        rights: await access.ownerRights(actor.userId, server),
        teamRole: null,
        approved,
      };
    }
    // One membership lookup answers both the rights and the exact role (transfer needs the OWNER).
    const teamRole = await access.teamRole(actor.userId, server.ownerId);
    return { platformRole: actor.role, rights: ownerRightsFromTeamRole(teamRole), teamRole, approved };
  }

  async function can(actor: Actor | null, permission: ServerPermission, server: ServerFacts) {
    return serverPermits(await standing(actor, server), permission);
  }

  /**
   * 401 for an anonymous caller of anything but view, then 404 when the caller may not see the server (it does
   * not exist for them), then 403 when they see it but lack the permission.
   */
  async function authorize(actor: Actor | null, permission: ServerPermission, server: ServerFacts) {
    if (actor === null && permission !== 'server.view') throw unauthorized();
    const facts = await standing(actor, server);
    if (!serverPermits(facts, 'server.view')) throw notFound('Server');
    // A team-bound API key changes only servers its team owns (spec/extensions.md §5).
    if (permission !== 'server.view') assertTeamObject(actor, server);
    if (permission !== 'server.view' && !serverPermits(facts, permission))
      throw forbidden(DENIED[permission]);
    return facts;
  }

  async function findFacts(serverId: string, executor: Executor = db): Promise<ServerFacts | undefined> {
    const row = await executor
      .selectFrom('servers')
      .select(['id', 'status', 'owner_type', 'owner_id'])
      .where('id', '=', serverId)
      .executeTakeFirst();
    return row && { id: row.id, status: row.status, ownerType: row.owner_type, ownerId: row.owner_id };
  }

  /** authorize() for a server known only by id: an unknown id is 404 like an invisible one. */
  async function authorizeById(actor: Actor | null, permission: ServerPermission, serverId: string) {
    if (actor === null && permission !== 'server.view') throw unauthorized();
    const facts = await findFacts(serverId);
    if (facts === undefined) throw notFound('Server');
    await authorize(actor, permission, facts);
    return facts;
  }

  /** Whether the caller sees every server of this owner, non-approved ones included. */
  async function seesAllOf(actor: Actor | null, owner: OwnerRef): Promise<boolean> {
    if (actor === null) return false;
    return seesAllServersOf(actor.role, await access.ownerRights(actor.userId, owner));
  }

  return { standing, can, authorize, authorizeById, findFacts, seesAllOf };
}
