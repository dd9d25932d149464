// Live status of a server (DESIGN §8 "Servers", spec/extensions.md §3): heartbeats (keys/) and the owner side's
// status reports record online, players and capacity. A server whose last report of either kind is
// STATUS_STALE_AFTER_MS old is shown offline with no players, so a directory sorted by players never keeps a dead
// server at the top. Each flip of the online flag records server.went_online or went_offline.
import type { Kysely } from 'kysely';
import type { Actor } from '../../../core/auth/authenticate.js';
import type { ServerAccess } from '../../../core/auth/server-access.js';
import type { Clock } from '../../../core/clock.js';
import type { DB } from '../../../core/db/schema.js';
import { badRequest, notFound } from '../../../core/http/errors.js';
import { recordServerEvent } from '../server-events.js';
import { bumpDirectoryVersion } from '../servers.repo.js';
import { flipOnline, markSilentServersOffline, updateReportedStatus } from './ranks.repo.js';

/** A server is online while its last heartbeat or status report is younger than this (spec §3). */
export const STATUS_STALE_AFTER_MS = 3 * 60_000;

export interface StatusReport {
  online: boolean;
  onlinePlayers: number;
  maxPlayers: number;
}

export type ServerStatusService = ReturnType<typeof createServerStatusService>;

export function createServerStatusService(deps: {
  db: Kysely<DB>;
  clock: Clock;
  serverAccess: ServerAccess;
}) {
  const { db, clock, serverAccess } = deps;

  return {
    /** An offline server has no players, whatever was sent; onlinePlayers above maxPlayers is a 400. */
    async report(actor: Actor, serverId: string, report: StatusReport) {
      await serverAccess.authorizeById(actor, 'server.manage', serverId);
      if (report.onlinePlayers > report.maxPlayers) {
        throw badRequest('onlinePlayers cannot be greater than maxPlayers', {
          fields: { 'body.onlinePlayers': 'must be less than or equal to maxPlayers' },
        });
      }
      const status = {
        online: report.online,
        online_players: report.online ? report.onlinePlayers : 0,
        max_players: report.maxPlayers,
        last_reported_at: clock.now().toISOString(),
      };
      await db.transaction().execute(async (trx) => {
        const flipped = await flipOnline(trx, serverId, status.online);
        if (!(await updateReportedStatus(trx, serverId, status))) throw notFound('Server');
        if (flipped === undefined) return;
        await recordServerEvent(trx, status.online ? 'server.went_online' : 'server.went_offline', {
          at: status.last_reported_at,
          actorId: actor.userId,
          server: flipped,
          data: status.online
            ? { onlinePlayers: status.online_players, maxPlayers: status.max_players, cause: 'REPORTED' }
            : { cause: 'REPORTED' },
        });
        // A flip changes what the lists show (online filter and badge); player counts alone do not bump it.
        await bumpDirectoryVersion(trx);
      });
      return {
        id: serverId,
        online: status.online,
        onlinePlayers: status.online_players,
        maxPlayers: status.max_players,
        lastReportedAt: status.last_reported_at,
      };
    },

    /**
     * The job: servers silent for STATUS_STALE_AFTER_MS go offline with no players. The event is dated at the
     * boundary (last report + 3 minutes), when the server stopped counting as online, not when the job ran.
     */
    async sweepSilentServers(): Promise<void> {
      const now = clock.now();
      await db.transaction().execute(async (trx) => {
        const silenced = await markSilentServersOffline(
          trx,
          new Date(now.getTime() - STATUS_STALE_AFTER_MS).toISOString(),
        );
        for (const { last_reported_at: reportedAt, ...server } of silenced) {
          const at =
            reportedAt === null ? now : new Date(new Date(reportedAt).getTime() + STATUS_STALE_AFTER_MS);
          await recordServerEvent(trx, 'server.went_offline', {
            at: at.toISOString(),
            actorId: null,
            server,
            data: { cause: 'SILENT' },
          });
        }
        if (silenced.length > 0) await bumpDirectoryVersion(trx);
      });
    },
  };
}
