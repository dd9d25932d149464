// Votes (spec/extensions.md §3): the two cooldowns, the counters and the event, all in one transaction, and the
// owner side's list of votes. Votifier settings live in votifier.service.ts, delivery in delivery.ts.
import type { Kysely } from 'kysely';
import type { Actor } from '../../../core/auth/authenticate.js';
import type { ServerAccess } from '../../../core/auth/server-access.js';
import type { Clock } from '../../../core/clock.js';
import type { DialectName } from '../../../core/db/database.js';
import { lockForUpdate } from '../../../core/db/dialect.js';
import type { DB } from '../../../core/db/schema.js';
import { downloadClientKey } from '../../../core/files/client-ip.js';
import { conflict, notFound } from '../../../core/http/errors.js';
import { newId } from '../../../core/ids.js';
import { recordServerEvent } from '../server-events.js';
import { bumpDirectoryVersion } from '../servers.repo.js';
import { toVote } from './votes.mapper.js';
import {
  countVote,
  countVotes,
  findVoteTarget,
  hasEnabledVotifier,
  insertVote,
  latestVotes,
  listVotes,
  resetStaleVoteCounts,
} from './votes.repo.js';
import { VOTE_COOLDOWN_HOURS } from './votes.schemas.js';

const COOLDOWN_MS = VOTE_COOLDOWN_HOURS * 60 * 60 * 1000;

/** The UTC calendar month of a time, as stored in servers.vote_month. */
export const voteMonth = (at: Date): string => at.toISOString().slice(0, 7);

export type VotesService = ReturnType<typeof createVotesService>;

export function createVotesService(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  clock: Clock;
  serverAccess: ServerAccess;
}) {
  const { db, dialect, clock, serverAccess } = deps;
  // Votes of one server queue here before taking a connection: a burst of votes for one server would otherwise
  // hold every pooled connection waiting on the same database lock (measured: 503s at 200 parallel votes on
  // PostgreSQL). The database lock still orders votes across processes.
  const queues = new Map<string, Promise<unknown>>();
  function oneAtATime<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = queues.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const tail = next.catch(() => undefined);
    queues.set(key, tail);
    void tail.then(() => {
      if (queues.get(key) === tail) queues.delete(key);
    });
    return next;
  }

  return {
    /**
     * One vote by the caller from `clientIp`. The server's lock is taken before the cooldowns are read, so two
     * concurrent votes of one account or one address cannot both pass them.
     */
    async vote(actor: Actor, serverId: string, username: string, clientIp: string) {
      // 404 for a server the caller may not see, before anything is locked.
      await serverAccess.authorizeById(actor, 'server.view', serverId);
      const now = clock.now();
      const at = now.toISOString();
      const clientKey = downloadClientKey(clientIp);
      return oneAtATime(serverId, () =>
        db.transaction().execute(async (trx) => {
          await lockForUpdate(trx, dialect, `server-votes:${serverId}`);
          const server = await findVoteTarget(trx, serverId);
          if (server === undefined) throw notFound('Server');
          if (server.status !== 'APPROVED')
            throw conflict('Only APPROVED servers accept votes', 'SERVER_NOT_APPROVED');
          const since = new Date(now.getTime() - COOLDOWN_MS).toISOString();
          const latest = await latestVotes(trx, serverId, { userId: actor.userId, clientKey }, since);
          const last = Math.max(
            ...[latest.byUser, latest.byClient].map((at) => (at === null ? 0 : Date.parse(at))),
          );
          if (last > 0) {
            const nextVoteAt = new Date(last + COOLDOWN_MS).toISOString();
            throw conflict(
              `One vote per ${VOTE_COOLDOWN_HOURS} hours for this server, per account and per network address; ` +
                `vote again at ${nextVoteAt}`,
              'VOTE_COOLDOWN',
              { nextVoteAt },
            );
          }
          const deliver = await hasEnabledVotifier(trx, serverId);
          await insertVote(trx, {
            id: newId(),
            server_id: serverId,
            user_id: actor.userId,
            username,
            client_key: clientKey,
            address: clientIp,
            created_at: at,
            delivery_status: deliver ? 'PENDING' : null,
            delivery_attempts: 0,
            delivery_last_error: null,
            delivery_next_at: deliver ? at : null,
            delivery_last_attempt_at: null,
          });
          const counts = await countVote(trx, serverId, voteMonth(now));
          const voteCount = Number(counts.vote_count);
          const totalVotes = Number(counts.total_votes);
          // No voter identity anywhere in the event: no actor, counts only.
          await recordServerEvent(trx, 'server.voted', {
            at,
            actorId: null,
            server,
            data: { voteCount, totalVotes },
          });
          return { voteCount, totalVotes, nextVoteAt: new Date(now.getTime() + COOLDOWN_MS).toISOString() };
        }),
      );
    },

    /** The owner side's view of the votes, newest first. */
    async list(actor: Actor, serverId: string, limit: number, offset: number) {
      await serverAccess.authorizeById(actor, 'server.manage', serverId);
      const [rows, total] = await Promise.all([
        listVotes(db, serverId, limit, offset),
        countVotes(db, serverId),
      ]);
      return { votes: rows.map(toVote), total };
    },

    /**
     * The monthly reset: counters of an earlier month go to 0. Idempotent; returns how many it changed. It moves
     * the directory version (cached pages sorted by votes change order at once), votes themselves do not.
     */
    resetStaleMonths: () =>
      db.transaction().execute(async (trx) => {
        const changed = await resetStaleVoteCounts(trx, voteMonth(clock.now()));
        if (changed > 0) await bumpDirectoryVersion(trx);
        return changed;
      }),
  };
}
