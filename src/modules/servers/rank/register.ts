// The transparent server rank (spec/extensions.md §3).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../app.js';
import type { SharedServices } from '../../shared-services.js';
import { recomputeRanks } from './rank.repo.js';

export const RANK_JOB = 'recompute-server-ranks';

export async function registerServerRank(
  _app: FastifyInstance,
  context: AppContext,
  _shared: SharedServices,
): Promise<void> {
  context.scheduler.register({
    name: RANK_JOB,
    intervalMs: 60_000,
    run: () => recomputeRanks(context.database.db),
  });
}
