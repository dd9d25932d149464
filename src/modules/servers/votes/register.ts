// Server votes, the monthly reset and Votifier delivery (spec/extensions.md §3).
//
// Delivery runs as a scheduler job rather than a second poll loop like the webhook worker: a vote needs no
// ordering and no per-receiver slot, the scheduler already runs a job in one process at a time across all of
// them (plus the claim's SKIP LOCKED lease below it), and a few seconds between a vote and its reward in game is
// what players expect from vote sites. Tests and operators drain it with scheduler.runNow(DELIVER_VOTES_JOB).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../app.js';
import { DAY_MS } from '../../../core/clock.js';
import { createSecretBox } from '../../../core/events/secret-box.js';
import type { SharedServices } from '../../shared-services.js';
import { createVoteDelivery } from './delivery.js';
import { forgetVoterAddresses } from './votes.repo.js';
import { votesRoutes } from './votes.routes.js';
import { createVotesService } from './votes.service.js';
import { createVotifierService } from './votifier.service.js';

export const DELIVER_VOTES_JOB = 'deliver-votifier-votes';
export const RESET_MONTHLY_VOTES_JOB = 'reset-monthly-votes';
export const FORGET_VOTER_ADDRESSES_JOB = 'forget-voter-addresses';
/** Voter addresses are kept this long: the cooldowns need 24 hours, deliveries at most the 31-hour schedule. */
export const VOTER_ADDRESS_RETENTION_MS = 30 * DAY_MS;

export async function registerServerVotes(
  app: FastifyInstance,
  context: AppContext,
  shared: SharedServices,
): Promise<void> {
  const { database, clock, config, scheduler } = context;
  const { db, dialect } = database;
  const secretBox = createSecretBox(config.secret, 'votifier-token');
  const allowPrivate = config.events.outboundAllowPrivate;
  const votes = createVotesService({ db, dialect, clock, serverAccess: shared.serverAccess });
  const votifier = createVotifierService({
    db,
    clock,
    serverAccess: shared.serverAccess,
    secretBox,
    outboundAllowPrivate: allowPrivate,
  });
  await app.register(votesRoutes, { votes, votifier });

  const delivery = createVoteDelivery({
    db,
    dialect,
    clock,
    secretBox,
    serviceName: config.votes.votifierServiceName,
    settings: { timeoutMs: config.votes.votifierTimeoutMs, allowPrivate },
    logger: app.log,
  });
  scheduler.register({
    name: DELIVER_VOTES_JOB,
    intervalMs: 5_000,
    run: async () => {
      await delivery.deliverDue();
    },
  });
  scheduler.register({
    // Idempotent (only counters of an earlier month change), so a late or repeated run is harmless; until it
    // runs after midnight on the 1st, lists show last month's counts for at most this interval.
    name: RESET_MONTHLY_VOTES_JOB,
    intervalMs: 5 * 60_000,
    run: async () => {
      const reset = await votes.resetStaleMonths();
      if (reset > 0) app.log.info({ reset }, 'monthly vote counters reset');
    },
  });
  scheduler.register({
    name: FORGET_VOTER_ADDRESSES_JOB,
    intervalMs: DAY_MS,
    run: async () => {
      const before = new Date(clock.now().getTime() - VOTER_ADDRESS_RETENTION_MS).toISOString();
      const forgotten = await forgetVoterAddresses(db, before);
      if (forgotten > 0) app.log.info({ forgotten }, 'voter addresses of old votes forgotten');
    },
  });
}
