// Moderation threads (spec/extensions.md §4): the routes; automatic messages are posted by the moderation
// services themselves (automatic.ts), in the transaction of each action.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../app.js';
import type { SharedServices } from '../../shared-services.js';
import { threadsRoutes } from './threads.routes.js';
import { createThreadsService } from './threads.service.js';

export async function registerModerationThreads(
  app: FastifyInstance,
  context: AppContext,
  shared: SharedServices,
): Promise<void> {
  const { db, dialect } = context.database;
  await app.register(threadsRoutes, {
    threads: createThreadsService({
      db,
      dialect,
      clock: context.clock,
      resourceAccess: shared.resourceAccess,
      serverAccess: shared.serverAccess,
    }),
  });
}
