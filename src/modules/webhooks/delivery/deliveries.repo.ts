// The delivery queue: one row per (webhook, event) from the fan-out, plus pings and redeliveries.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../../core/db/schema.js';
import { newId } from '../../../core/ids.js';

type Executor = Kysely<DB> | Transaction<DB>;

export interface NewDelivery {
  webhookId: string;
  eventId: string;
  eventType: string;
  /** When set, this delivery re-sends that one (POST …/redeliver). */
  redeliveryOf?: string;
  /** Due at once. */
  now: string;
}

/** Queues deliveries due now; returns their ids in the order given. */
export async function insertDeliveries(executor: Executor, deliveries: NewDelivery[]): Promise<string[]> {
  if (deliveries.length === 0) return [];
  const rows = deliveries.map((delivery) => ({
    id: newId(),
    webhook_id: delivery.webhookId,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    status: 'PENDING' as const,
    attempts: 0,
    next_attempt_at: delivery.now,
    last_attempt_at: null,
    last_response_status: null,
    last_response_body: null,
    last_error: null,
    duration_ms: null,
    redelivery_of: delivery.redeliveryOf ?? null,
    created_at: delivery.now,
  }));
  await executor.insertInto('webhook_deliveries').values(rows).execute();
  return rows.map((row) => row.id);
}

/** Deliveries waiting and events not yet fanned out, for /metrics (both counts use partial indexes). */
export async function countWebhookBacklog(
  db: Kysely<DB>,
): Promise<{ pendingDeliveries: number; undispatchedEvents: number }> {
  const [deliveries, events] = await Promise.all([
    db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('status', '=', 'PENDING')
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('dispatched_at', 'is', null)
      .executeTakeFirstOrThrow(),
  ]);
  return { pendingDeliveries: Number(deliveries.count), undispatchedEvents: Number(events.count) };
}
