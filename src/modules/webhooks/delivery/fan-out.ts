// The fan-out turns committed events into deliveries, one per (active webhook, event) whose scope and event types
// match. It reads events not yet dispatched; on PostgreSQL each batch is locked with FOR UPDATE SKIP LOCKED, so
// with any number of processes every event is fanned out exactly once (the batch's deliveries and its
// dispatched_at commit together). Whether the webhook's creator may see the event is decided at delivery time.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DialectName } from '../../../core/db/database.js';
import type { DB, EventsTable, WebhookScopeKind } from '../../../core/db/schema.js';
import { insertDeliveries } from './deliveries.repo.js';
import type { NewDelivery } from './deliveries.repo.js';

const BATCH = 200;

type RoutedEvent = Pick<
  EventsTable,
  'id' | 'type' | 'audience' | 'resource_id' | 'server_id' | 'team_id' | 'user_id' | 'audience_user_id'
>;

interface Subscription {
  id: string;
  scope_kind: WebhookScopeKind;
  scope_id: string | null;
  events: string;
}

/** Whether the event falls within the webhook's scope. */
export function inScope(kind: WebhookScopeKind, scopeId: string | null, event: RoutedEvent): boolean {
  switch (kind) {
    case 'PLATFORM':
      return true;
    case 'USER':
      return event.user_id === scopeId || event.audience_user_id === scopeId;
    case 'TEAM':
      return event.team_id === scopeId;
    case 'RESOURCE':
      return event.resource_id === scopeId;
    case 'SERVER':
      return event.server_id === scopeId;
  }
}

const ids = (values: (string | null)[]) => [
  ...new Set(values.filter((value): value is string => value !== null)),
];

/**
 * Fans out one batch of events below `before` (the settle window, core/events/settle.ts); returns how many it
 * dispatched (0: nothing was waiting).
 */
export async function fanOutBatch(
  db: Kysely<DB>,
  dialect: DialectName,
  now: string,
  before: string | undefined,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const events = await trx
      .selectFrom('events')
      .select([
        'id',
        'type',
        'audience',
        'resource_id',
        'server_id',
        'team_id',
        'user_id',
        'audience_user_id',
      ])
      .where('dispatched_at', 'is', null)
      .$if(before !== undefined, (query) => query.where('id', '<', before!))
      .orderBy('id')
      .limit(BATCH)
      .$if(dialect === 'postgres', (query) => query.modifyEnd(sql`for update skip locked`))
      .execute();
    if (events.length === 0) return 0;
    const routed = events.filter((event) => event.audience !== 'NONE');
    const users = ids(routed.flatMap((event) => [event.user_id, event.audience_user_id]));
    const teams = ids(routed.map((event) => event.team_id));
    const resources = ids(routed.map((event) => event.resource_id));
    const servers = ids(routed.map((event) => event.server_id));
    const subscriptions: Subscription[] =
      routed.length === 0
        ? []
        : await trx
            .selectFrom('webhooks')
            .select(['id', 'scope_kind', 'scope_id', 'events'])
            .where('active', '=', true)
            .where((eb) => {
              const scoped = (kind: WebhookScopeKind, values: string[]) =>
                values.length === 0
                  ? []
                  : [eb.and([eb('scope_kind', '=', kind), eb('scope_id', 'in', values)])];
              return eb.or([
                eb('scope_kind', '=', 'PLATFORM'),
                ...scoped('USER', users),
                ...scoped('TEAM', teams),
                ...scoped('RESOURCE', resources),
                ...scoped('SERVER', servers),
              ]);
            })
            .orderBy('id')
            .execute();
    const wanted = subscriptions.map((subscription) => ({
      ...subscription,
      types: new Set(JSON.parse(subscription.events) as string[]),
    }));
    const deliveries: NewDelivery[] = [];
    for (const event of routed) {
      for (const webhook of wanted) {
        if (!webhook.types.has('*') && !webhook.types.has(event.type)) continue;
        if (!inScope(webhook.scope_kind, webhook.scope_id, event)) continue;
        deliveries.push({ webhookId: webhook.id, eventId: event.id, eventType: event.type, now });
      }
    }
    for (let start = 0; start < deliveries.length; start += 500) {
      await insertDeliveries(trx, deliveries.slice(start, start + 500));
    }
    await trx
      .updateTable('events')
      .set({ dispatched_at: now })
      .where(
        'id',
        'in',
        events.map((event) => event.id),
      )
      .execute();
    return events.length;
  });
}
