// POST /servers/:id/transfer-ownership (DESIGN §8 "Ownership"). The current owner (the user owner, or the
// owning team's OWNER) hands the server to an active user, or to a team in which the caller is OWNER or ADMIN:
// moving a server into a team is the same act as creating one for it, so it takes the same team role. The
// owner and both teams' server_count change in one transaction under the server's lock.
import type { Kysely } from 'kysely';
import type { Access } from '../../core/auth/access.js';
import type { Actor } from '../../core/auth/authenticate.js';
import type { ServerAccess } from '../../core/auth/server-access.js';
import type { Clock } from '../../core/clock.js';
import type { DialectName } from '../../core/db/database.js';
import { lockForUpdate } from '../../core/db/dialect.js';
import type { DB } from '../../core/db/schema.js';
import { conflict, forbidden, notFound } from '../../core/http/errors.js';
import { refreshServerSearch } from '../search/server-documents.js';
import { recordServerEvent } from './server-events.js';
import * as repo from './servers.repo.js';
import { changedMeanwhile, serverLockKey } from './servers.service.js';

export interface TransferTarget {
  newOwnerId: string;
  ownerType: 'USER' | 'TEAM';
}

export type ServerTransfer = ReturnType<typeof createServerTransfer>;

export function createServerTransfer(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  clock: Clock;
  access: Access;
  serverAccess: ServerAccess;
}) {
  const { db, dialect, clock, access, serverAccess } = deps;

  async function checkTarget(actor: Actor, target: TransferTarget): Promise<void> {
    if (target.ownerType === 'USER') {
      const user = await repo.findUserStanding(db, target.newOwnerId);
      if (user === undefined || user.status === 'BANNED') throw notFound('User');
      return;
    }
    if (!(await repo.teamExists(db, target.newOwnerId))) throw notFound('Team');
    if (!(await access.canCreateForTeam(actor.userId, target.newOwnerId))) {
      throw forbidden('A server can only be transferred to a team in which you are OWNER or ADMIN');
    }
  }

  return {
    async transfer(actor: Actor, serverId: string, target: TransferTarget) {
      const facts = await serverAccess.authorizeById(actor, 'server.transfer', serverId);
      if (facts.ownerType === target.ownerType && facts.ownerId === target.newOwnerId) {
        throw conflict('The server already belongs to this owner', 'ALREADY_OWNER');
      }
      await checkTarget(actor, target);
      await db.transaction().execute(async (trx) => {
        await lockForUpdate(trx, dialect, serverLockKey(serverId));
        const server = await repo.findServerRow(trx, serverId);
        if (server === undefined) throw notFound('Server');
        if (server.owner_type !== facts.ownerType || server.owner_id !== facts.ownerId)
          throw changedMeanwhile();
        const at = clock.now().toISOString();
        const to = { owner_type: target.ownerType, owner_id: target.newOwnerId };
        await repo.moveOwner(trx, serverId, to, at);
        if (server.owner_type === 'TEAM') await repo.moveTeamServerCount(trx, server.owner_id, -1);
        // The receiving team may have been deleted since the check; its counter update is the final word.
        if (target.ownerType === 'TEAM' && !(await repo.moveTeamServerCount(trx, target.newOwnerId, 1))) {
          throw notFound('Team');
        }
        // The owner's names are part of the server's search document.
        await refreshServerSearch(trx, [serverId]);
        await repo.bumpDirectoryVersion(trx);
        await recordServerEvent(trx, 'server.transferred', {
          at,
          actorId: actor.userId,
          server: { ...server, ...to },
          data: {
            from: { ownerType: server.owner_type, ownerId: server.owner_id },
            to: { ownerType: to.owner_type, ownerId: to.owner_id },
          },
        });
      });
      return {
        message: 'Server ownership transferred',
        server: { id: serverId, ownerId: target.newOwnerId, ownerType: target.ownerType },
      };
    },
  };
}
