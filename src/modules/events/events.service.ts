// GET /events: the event log after a cursor, filtered to what the caller may read (core/events/visibility.ts).
import type { Kysely } from 'kysely';
import type { Actor } from '../../core/auth/authenticate.js';
import type { DB } from '../../core/db/schema.js';
import { presentEvent } from '../../core/events/present.js';
import { settledBefore } from '../../core/events/settle.js';
import type { EventObject } from '../../core/events/present.js';
import { canReadEvent, loadEventFacts } from '../../core/events/visibility.js';
import { readEventsPage } from './events.repo.js';
import type { EventFilter } from './events.repo.js';

/** Rows read per query while filling a page. */
const BATCH = 200;
/**
 * Rows examined per request at most. When a reader may see few of the events after the cursor, the answer stops
 * here with fewer events than asked and a nextCursor past everything examined, so the next call goes on from there
 * instead of scanning the whole log in one request.
 */
const SCAN_BUDGET = 1000;

export interface EventListQuery extends EventFilter {
  after?: string;
  limit?: number;
}

export type EventsService = ReturnType<typeof createEventsService>;

export function createEventsService({
  db,
  settleMs,
  wallClock = () => Date.now(),
}: {
  db: Kysely<DB>;
  /** Events younger than this are held back (see EventsConfig.feedSettleMs). */
  settleMs: number;
  /** Event ids carry wall-clock time; the settle window is measured on it. */
  wallClock?: () => number;
}) {
  return {
    async list(
      actor: Actor | null,
      query: EventListQuery,
    ): Promise<{ events: EventObject[]; nextCursor: string | null }> {
      const limit = query.limit ?? 50;
      const reader = actor === null ? null : { userId: actor.userId, role: actor.role };
      const before = settledBefore(settleMs, wallClock);
      const events: EventObject[] = [];
      let cursor = query.after;
      let examined = 0;
      while (events.length < limit && examined < SCAN_BUDGET) {
        const rows = await readEventsPage(db, query, { after: cursor, before }, BATCH);
        const facts = await loadEventFacts(db, reader, rows);
        for (const row of rows) {
          examined += 1;
          cursor = row.id;
          if (canReadEvent(reader, row, facts)) events.push(presentEvent(row));
          if (events.length === limit) break;
        }
        if (rows.length < BATCH) {
          // The end of the log: the cursor is the last event returned, or the given one.
          cursor = events.at(-1)?.id ?? query.after;
          break;
        }
      }
      return { events, nextCursor: cursor ?? null };
    },
  };
}
