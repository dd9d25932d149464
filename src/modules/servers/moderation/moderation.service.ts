// Server moderation (DESIGN §8 "Servers"): approve, reject and suspend by platform MODERATOR+, each a
// transition of the status machine in server-states.ts, appended to the history with its reason and notes.
// Entering or leaving APPROVED moves the public counters (approved total, tag and category usage) in the same
// transaction; leaving it also drops the rank, so non-approved servers never carry one.
import type { Kysely } from 'kysely';
import type { Actor } from '../../../core/auth/authenticate.js';
import type { Clock } from '../../../core/clock.js';
import type { DialectName } from '../../../core/db/database.js';
import { lockForUpdate } from '../../../core/db/dialect.js';
import type { DB, ServerStatus } from '../../../core/db/schema.js';
import { invalidTransition, notFound } from '../../../core/http/errors.js';
import { newId } from '../../../core/ids.js';
import type { MediaUrls } from '../../../core/media-urls.js';
import { recordAudit } from '../../audit/record.js';
import { postAutomaticMessage } from '../../moderation/threads/automatic.js';
import { refreshServerSearch } from '../../search/server-documents.js';
import { moveUsageOfServer } from '../catalogs/catalog-links.repo.js';
import { lockRanks, placeApprovedServer } from '../rank/rank.repo.js';
import { recordServerEvent } from '../server-events.js';
import { countServersInStatus, listServersInStatus } from '../server-reads.repo.js';
import { toServer } from '../servers.mapper.js';
import type { ServerView } from '../servers.mapper.js';
import { bumpDirectoryVersion, findServerRow, moveApprovedTotal, moveStatus } from '../servers.repo.js';
import { changedMeanwhile, optionalText, serverLockKey } from '../servers.service.js';
import type { ServersService } from '../servers.service.js';
import { toModerationEvent } from './moderation.mapper.js';
import { insertModerationEvent, listModerationEvents } from './moderation.repo.js';
import { acceptedStatuses, nextServerStatus } from './server-states.js';
import type { ServerModerationAction } from './server-states.js';

export interface ModerationInput {
  reason?: string | null;
  notes?: string | null;
}

const VERBS: Record<ServerModerationAction, string> = {
  APPROVE: 'approve',
  REJECT: 'reject',
  SUSPEND: 'suspend',
};

const SERVER_AUDIT_ACTION = {
  APPROVE: 'server.approved',
  REJECT: 'server.rejected',
  SUSPEND: 'server.suspended',
} as const satisfies Record<ServerModerationAction, string>;

export type ServerModerationService = ReturnType<typeof createServerModerationService>;

export function createServerModerationService(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  clock: Clock;
  urls: MediaUrls;
  servers: Pick<ServersService, 'view'>;
}) {
  const { db, dialect, clock, urls, servers } = deps;

  return {
    async moderate(
      actor: Actor,
      serverId: string,
      action: ServerModerationAction,
      input: ModerationInput,
    ): Promise<ServerView> {
      await db.transaction().execute(async (trx) => {
        await lockForUpdate(trx, dialect, serverLockKey(serverId));
        const server = await findServerRow(trx, serverId);
        if (server === undefined) throw notFound('Server');
        const to = nextServerStatus(server.status, action);
        if (to === null) {
          throw invalidTransition(
            `This server is ${server.status} and cannot be ${VERBS[action]}d: ${action} applies to ` +
              `${acceptedStatuses(action).join(', ')} servers only`,
          );
        }
        const now = clock.now().toISOString();
        const reason = action === 'APPROVE' ? null : optionalText(input.reason);
        // An approval renumbers the ranks below: take the rank lock before any server row (rank.repo.ts).
        if (to === 'APPROVED') await lockRanks(trx, dialect);
        const moved = await moveStatus(trx, serverId, server.status, {
          status: to,
          status_reason: reason,
          status_updated_at: now,
          ...(to !== 'APPROVED' ? { rank: null } : {}),
        });
        if (!moved) throw changedMeanwhile();
        if (server.status !== 'APPROVED' && to === 'APPROVED') {
          // Never unranked while APPROVED: placed now by its last computed score (spec/extensions.md §3).
          await placeApprovedServer(trx, serverId, now);
          await moveUsageOfServer(trx, serverId, 1);
          await moveApprovedTotal(trx, 1);
        } else if (server.status === 'APPROVED' && to !== 'APPROVED') {
          await moveUsageOfServer(trx, serverId, -1);
          await moveApprovedTotal(trx, -1);
        }
        await refreshServerSearch(trx, [serverId]);
        await recordServerEvent(trx, 'server.moderated', {
          at: now,
          actorId: actor.userId,
          server: { ...server, status: to },
          data: { action, fromStatus: server.status, toStatus: to, reason },
        });
        await insertModerationEvent(trx, {
          id: newId(),
          server_id: serverId,
          action,
          from_status: server.status,
          to_status: to,
          reason,
          notes: optionalText(input.notes),
          moderator_id: actor.userId,
          created_at: now,
        });
        await postAutomaticMessage(trx, {
          subjectKind: 'SERVER',
          subjectId: serverId,
          versionId: null,
          action,
          reason,
          notes: optionalText(input.notes),
          moderatorId: actor.userId,
          at: now,
        });
        await recordAudit(trx, {
          actorId: actor.userId,
          action: SERVER_AUDIT_ACTION[action],
          subjectKind: 'SERVER',
          subjectId: serverId,
          before: { status: server.status },
          after: { status: to, reason, notes: optionalText(input.notes) },
          at: now,
        });
        await bumpDirectoryVersion(trx);
      });
      return servers.view(serverId);
    },

    async history(serverId: string) {
      if ((await findServerRow(db, serverId)) === undefined) throw notFound('Server');
      return (await listModerationEvents(db, serverId)).map(toModerationEvent);
    },

    /** The moderation queue: servers in one status, longest-waiting first. */
    async listInStatus(status: ServerStatus, limit: number, offset: number) {
      const [rows, total] = await Promise.all([
        listServersInStatus(db, dialect, status, limit, offset),
        countServersInStatus(db, status),
      ]);
      return { servers: rows.map((row) => toServer(row, urls)), total };
    },
  };
}
