// Votifier delivery of votes (spec/extensions.md §3). A vote on a server with an enabled Votifier is written
// PENDING in the vote's own transaction, so the work is durable. The job deliver-votifier-votes (register.ts)
// drains what is due: a claim takes due votes (PostgreSQL: FOR UPDATE SKIP LOCKED) and pushes their next time
// out by a lease, so two processes never send one vote at once and a process that dies mid-send leaves the vote
// to be sent again after the lease (at least once). The outcome, the next retry on the shared schedule
// (core/outbound/retry.ts) or FAILED is written after the attempt. Time is the app's clock.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../../core/clock.js';
import type { DialectName } from '../../../core/db/database.js';
import type { DB } from '../../../core/db/schema.js';
import type { SecretBox } from '../../../core/events/secret-box.js';
import { retryDelayMs } from '../../../core/outbound/retry.js';
import { sendVotifierVote } from './votifier-client.js';
import type { VotifierResult, VotifierSettings } from './votifier-client.js';

/** Votes sent at once by one process. */
const CONCURRENCY = 10;
/** A run stops claiming after this long, so one run never holds the job's lock for long; the next run goes on. */
const RUN_BUDGET_MS = 60_000;

export interface VoteDeliveryOutcome {
  voteId: string;
  result: 'succeeded' | 'retrying' | 'failed';
}

interface ClaimedVote {
  id: string;
  username: string;
  address: string | null;
  created_at: string;
  delivery_attempts: number;
  host: string | null;
  port: number | null;
  token_sealed: string | null;
  enabled: boolean | number | null;
}

export type VoteDelivery = ReturnType<typeof createVoteDelivery>;

export function createVoteDelivery(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  clock: Clock;
  secretBox: SecretBox;
  serviceName: string;
  settings: VotifierSettings;
  logger: FastifyBaseLogger;
}) {
  const { db, dialect, clock, secretBox, serviceName, settings, logger } = deps;
  // Longer than one attempt can take, so a lease only runs out when its process is gone.
  const leaseMs = settings.timeoutMs + 10_000;

  async function claim(limit: number): Promise<ClaimedVote[]> {
    const nowDate = clock.now();
    const now = nowDate.toISOString();
    return db.transaction().execute(async (trx) => {
      const due = await trx
        .selectFrom('server_votes')
        .select('id')
        .where('delivery_status', '=', 'PENDING')
        .where('delivery_next_at', '<=', now)
        .orderBy('delivery_next_at')
        .limit(limit)
        .$if(dialect === 'postgres', (query) => query.modifyEnd(sql`for update skip locked`))
        .execute();
      if (due.length === 0) return [];
      const ids = due.map((row) => row.id);
      await trx
        .updateTable('server_votes')
        .set({ delivery_next_at: new Date(nowDate.getTime() + leaseMs).toISOString() })
        .where('id', 'in', ids)
        .execute();
      return trx
        .selectFrom('server_votes as v')
        .leftJoin('server_votifiers as f', 'f.server_id', 'v.server_id')
        .select([
          'v.id',
          'v.username',
          'v.address',
          'v.created_at',
          'v.delivery_attempts',
          'f.host',
          'f.port',
          'f.token_sealed',
          'f.enabled',
        ])
        .where('v.id', 'in', ids)
        .execute();
    });
  }

  async function attempt(vote: ClaimedVote): Promise<VotifierResult | { skip: string }> {
    if (vote.host === null || vote.port === null || vote.token_sealed === null)
      return { skip: 'The Votifier was removed before the vote was delivered' };
    if (!vote.enabled) return { skip: 'The Votifier was disabled before the vote was delivered' };
    let token: string;
    try {
      token = secretBox.open(vote.token_sealed);
    } catch {
      // Sealed under another SECRET: the owner has to set the token again (PUT /servers/:id/votifier).
      return { ok: false, error: 'TOKEN_UNREADABLE: set the Votifier token again', durationMs: 0 };
    }
    return sendVotifierVote(
      { host: vote.host, port: vote.port, token },
      {
        serviceName,
        username: vote.username,
        // Forgotten only after the delivery settled; '' keeps the payload's shape if that ever races.
        address: vote.address ?? '',
        timestamp: Date.parse(vote.created_at),
      },
      settings,
    );
  }

  async function record(vote: ClaimedVote, outcome: VotifierResult | { skip: string }) {
    const now = clock.now();
    const skipped = 'skip' in outcome;
    const attempts = skipped ? vote.delivery_attempts : vote.delivery_attempts + 1;
    const delay = skipped || outcome.ok ? null : retryDelayMs(attempts);
    const status = !skipped && outcome.ok ? 'SUCCEEDED' : delay === null ? 'FAILED' : 'PENDING';
    await db
      .updateTable('server_votes')
      .set({
        delivery_status: status,
        delivery_attempts: attempts,
        delivery_last_error: skipped ? outcome.skip : outcome.ok ? null : outcome.error,
        delivery_next_at: delay === null ? null : new Date(now.getTime() + delay).toISOString(),
        ...(skipped ? {} : { delivery_last_attempt_at: now.toISOString() }),
      })
      .where('id', '=', vote.id)
      .where('delivery_status', '=', 'PENDING')
      .execute();
    return status === 'SUCCEEDED' ? 'succeeded' : status === 'FAILED' ? 'failed' : 'retrying';
  }

  async function deliver(vote: ClaimedVote): Promise<VoteDeliveryOutcome> {
    return { voteId: vote.id, result: await record(vote, await attempt(vote)) };
  }

  return {
    /** Sends every vote that is due (within the run budget); returns the outcomes. Tests drain through it. */
    async deliverDue(): Promise<VoteDeliveryOutcome[]> {
      const outcomes: VoteDeliveryOutcome[] = [];
      const started = performance.now();
      while (performance.now() - started < RUN_BUDGET_MS) {
        const claimed = await claim(CONCURRENCY);
        if (claimed.length === 0) break;
        const settled = await Promise.allSettled(claimed.map(deliver));
        for (const [index, result] of settled.entries()) {
          if (result.status === 'fulfilled') outcomes.push(result.value);
          // The lease runs out and another run tries again.
          else logger.error({ err: result.reason, voteId: claimed[index]!.id }, 'vote delivery failed');
        }
      }
      return outcomes;
    },
  };
}
