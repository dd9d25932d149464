// The conventions clients expect of the HTTP API (issue 12), one file each. Registered right after the error
// handling, before any route, so their onRoute rules see every route — including those added later.
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { DB } from '../../db/schema.js';
import type { Scheduler } from '../../jobs/scheduler.js';
import { registerCacheControl } from './cache-control.js';
import { purgeExpiredIdempotencyKeys, registerIdempotency } from './idempotency.js';
import { registerLinks } from './link.js';
import { registerLocation } from './location.js';
import { registerPagination } from './pagination.js';
import { registerRequestIdInErrors } from './request-id.js';
import { createRouteTable } from './route-table.js';

export function registerConventions(
  app: FastifyInstance,
  deps: { db: Kysely<DB>; clock: Clock; secret: string },
): void {
  const table = createRouteTable(app);
  app.decorate('routeTable', table);
  registerRequestIdInErrors(app);
  registerPagination(app);
  // onSend order matters: Location first, so the idempotency hook keeps it with the answer.
  registerLocation(app, table);
  registerLinks(app);
  registerCacheControl(app);
  registerIdempotency(app, deps);
}

export function scheduleConventionJobs(scheduler: Scheduler, db: Kysely<DB>, clock: Clock): void {
  scheduler.register({
    name: 'purge-idempotency-keys',
    intervalMs: 60 * 60 * 1000,
    run: async () => void (await purgeExpiredIdempotencyKeys(db, clock)),
  });
}
