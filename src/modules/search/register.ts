// Upkeep of the search indexes that runs beside the service (the indexes themselves are kept in step by the
// writes; search/rebuild.ts rebuilds them on demand).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app.js';
import { mergePendingEntries, PENDING_MERGE_INTERVAL_MS, PENDING_MERGE_JOB } from './pending-entries.js';

export function registerSearchUpkeep(app: FastifyInstance, context: AppContext): void {
  const { database, scheduler } = context;
  // SQLite's FTS5 merges its segments as it writes, and a search reads them through their index.
  if (database.dialect !== 'postgres') return;
  scheduler.register({
    name: PENDING_MERGE_JOB,
    intervalMs: PENDING_MERGE_INTERVAL_MS,
    run: async () => {
      const pages = await mergePendingEntries(database.db);
      if (pages > 0) app.log.debug({ pages }, 'search index pending entries merged');
    },
  });
}
