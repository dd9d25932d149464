// Server status history: sampling, hourly rollups, retention and GET /servers/:id/stats (spec/extensions.md §3).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../app.js';
import type { SharedServices } from '../../shared-services.js';
import { serverHistoryRoutes } from './history.routes.js';
import { createServerHistoryService } from './history.service.js';

export const SAMPLE_JOB = 'sample-server-status';
export const ROLLUP_JOB = 'rollup-server-history';

export async function registerServerHistory(
  app: FastifyInstance,
  context: AppContext,
  shared: SharedServices,
): Promise<void> {
  const { db, dialect } = context.database;
  const history = createServerHistoryService({
    db,
    dialect,
    clock: context.clock,
    serverAccess: shared.serverAccess,
  });
  // Every 30 s, not 60: the scheduler wakes a little after each run falls due, so a 60 s period drifts and would
  // now and then skip a minute (counted offline). The primary key makes the second run of a minute a no-op.
  context.scheduler.register({
    name: SAMPLE_JOB,
    intervalMs: 30_000,
    run: async () => void (await history.sample()),
  });
  // Every 5 minutes: a finished hour shows in the 7d/30d/90d stats within 5 minutes of its end; a run with
  // nothing to roll up or delete is three index lookups.
  context.scheduler.register({
    name: ROLLUP_JOB,
    intervalMs: 5 * 60_000,
    run: async () => void (await history.rollUp()),
  });
  await app.register(serverHistoryRoutes, { history });
}
