// Server keys and heartbeats (spec/extensions.md §3).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../app.js';
import type { SharedServices } from '../../shared-services.js';
import { heartbeatRoutes } from './heartbeat.routes.js';
import { createHeartbeatService } from './heartbeat.service.js';
import { serverKeysRoutes } from './keys.routes.js';
import { createServerKeysService } from './keys.service.js';

export async function registerServerKeys(
  app: FastifyInstance,
  context: AppContext,
  shared: SharedServices,
): Promise<void> {
  const { database, clock } = context;
  const { db, dialect } = database;
  await app.register(serverKeysRoutes, {
    keys: createServerKeysService({ db, dialect, clock, serverAccess: shared.serverAccess }),
  });
  await app.register(heartbeatRoutes, { heartbeats: createHeartbeatService({ db, dialect, clock }) });
}
