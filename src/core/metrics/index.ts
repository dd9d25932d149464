// Wires metrics into an app: the registry, the HTTP hook, pool observation and the /metrics route with its
// token. Nothing here runs when metrics are off (buildApp creates none), so they cost nothing by default.
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';
import { combinedPoolCounts } from '../db/index-plan-pool.js';
import { registerHttpMetrics } from './http-metrics.js';
import type { Metrics } from './metrics.js';
import { metricsRoutes, registerMetricsToken } from './metrics.routes.js';

export { createMetrics } from './metrics.js';
export type { Metrics } from './metrics.js';
export { instrumentStorage } from './storage-metrics.js';

/** Call before the authenticate plugin: the scrape token is checked ahead of account credentials. */
export async function registerMetrics(
  app: FastifyInstance,
  deps: { metrics: Metrics; token: string | undefined; database: Database },
): Promise<void> {
  const { metrics, database } = deps;
  registerHttpMetrics(app, metrics);
  registerMetricsToken(app, deps.token);
  if (database.pool !== undefined) {
    metrics.watchPool(combinedPoolCounts([database.pool, database.indexPlanPool]));
  }
  await app.register(metricsRoutes, { metrics });
}
