// The transparent server rank (spec/extensions.md §3).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../app.js';
import type { SharedServices } from '../../shared-services.js';
import { recomputeRanks } from './rank.repo.js';
import { serverRankRoutes } from './rank.routes.js';
import { createServerRankService } from './rank.service.js';

export const RANK_JOB = 'recompute-server-ranks';

export async function registerServerRank(
  app: FastifyInstance,
  context: AppContext,
  shared: SharedServices,
): Promise<void> {
  const { db, dialect } = context.database;
  const { weights } = context.config.rank;
  await app.register(serverRankRoutes, {
    rank: createServerRankService({ db, serverAccess: shared.serverAccess, weights }),
    weights,
  });
  context.scheduler.register({
    name: RANK_JOB,
    intervalMs: 60_000,
    run: () => recomputeRanks(db, dialect, context.clock.now(), weights),
  });
}
