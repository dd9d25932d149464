// Lookups by hash, update checks and the latest version (spec/extensions.md §2.1), and the SHA-512 backfill job.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../app.js';
import type { SharedServices } from '../../shared-services.js';
import { HASH_BACKFILL_JOB, createHashBackfill } from './hash-backfill.js';
import { lookupRoutes } from './lookup.routes.js';
import { createLookupService } from './lookup.service.js';

export async function registerFileLookups(
  app: FastifyInstance,
  context: AppContext,
  shared: SharedServices,
): Promise<void> {
  const { db } = context.database;
  const lookup = createLookupService({
    db,
    access: shared.access,
    versionAccess: shared.versionAccess,
    resources: shared.resources,
    urls: shared.urls,
  });
  const backfill = createHashBackfill({
    db,
    storage: context.storage,
    warn: (details, message) => app.log.warn(details, message),
  });
  // Every minute, a bounded batch each time; once every file has its digest a run is one indexed read.
  context.scheduler.register({
    name: HASH_BACKFILL_JOB,
    intervalMs: 60_000,
    run: async () => {
      const { hashed, missing } = await backfill.run();
      if (hashed > 0 || missing > 0) app.log.info({ hashed, missing }, 'SHA-512 backfill run');
    },
  });
  await app.register(lookupRoutes, { lookup });
}
