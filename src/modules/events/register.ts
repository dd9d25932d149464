// The event log's routes and upkeep: GET /events and the daily retention job (spec/extensions.md §1.1).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app.js';
import { DAY_MS } from '../../core/clock.js';
import { eventSettleMs } from '../../core/events/settle.js';
import { eventsRoutes } from './events.routes.js';
import { createEventsService } from './events.service.js';
import { deleteEventsBefore } from './retention.repo.js';

export async function registerEvents(app: FastifyInstance, context: AppContext): Promise<void> {
  const { database, clock, config, scheduler } = context;
  const settleMs = eventSettleMs(config.events, database.dialect);
  await app.register(eventsRoutes, { events: createEventsService({ db: database.db, settleMs }) });
  scheduler.register({
    // Events older than EVENT_RETENTION_DAYS go, with their deliveries (by cascade).
    name: 'purge-old-events',
    intervalMs: DAY_MS,
    run: async () => {
      const before = new Date(clock.now().getTime() - config.events.retentionDays * DAY_MS).toISOString();
      const deleted = await deleteEventsBefore(database.db, before);
      if (deleted > 0) app.log.info({ deleted, before }, 'old events purged');
    },
  });
}
