// Event ids are taken inside the writing transaction. SQLite serializes writers, so id order is commit order
// there; on PostgreSQL a transaction that took its id first can commit a moment after a later one. Readers that
// walk events in id order (GET /events, the webhook fan-out) therefore leave the newest moment alone.
import type { EventsConfig } from '../../config.js';
import type { DialectName } from '../db/database.js';
import { uuidV7Floor } from '../ids.js';

/** EVENT_FEED_SETTLE_MS, or its default: 1 s on PostgreSQL, nothing on SQLite. */
export function eventSettleMs(config: EventsConfig, dialect: DialectName): number {
  return config.feedSettleMs ?? (dialect === 'postgres' ? 1000 : 0);
}

/** The id events must be below to be read now (undefined: no window). Ids carry wall-clock time. */
export function settledBefore(settleMs: number, wallClock: () => number = Date.now): string | undefined {
  return settleMs > 0 ? uuidV7Floor(wallClock() - settleMs) : undefined;
}
