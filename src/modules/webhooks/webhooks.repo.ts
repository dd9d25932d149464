import type {
  Expression,
  ExpressionBuilder,
  Insertable,
  Kysely,
  Selectable,
  SqlBool,
  Transaction,
} from 'kysely';
import type { DB, DeliveryStatus, WebhookScopeKind, WebhooksTable } from '../../core/db/schema.js';

type Executor = Kysely<DB> | Transaction<DB>;

export type WebhookRow = Selectable<WebhooksTable>;
/** A webhook with its creator's current username, as every answer shows it. */
export type WebhookViewRow = WebhookRow & { created_by_username: string };

/** Which webhooks a caller may see (webhook-access.ts managedBy); null: all of them. */
export type WebhookFilter = ((eb: ExpressionBuilder<DB, 'webhooks'>) => Expression<SqlBool>) | null;

export interface WebhookListFilter {
  managed: WebhookFilter;
  scopeKind?: WebhookScopeKind | undefined;
  scopeId?: string | undefined;
}

function viewQuery(db: Executor) {
  return db
    .selectFrom('webhooks')
    .innerJoin('users', 'users.id', 'webhooks.created_by')
    .selectAll('webhooks')
    .select('users.username as created_by_username');
}

function applyFilter(db: Executor, filter: WebhookListFilter) {
  let query = db.selectFrom('webhooks');
  if (filter.managed !== null) query = query.where(filter.managed);
  if (filter.scopeKind !== undefined) query = query.where('webhooks.scope_kind', '=', filter.scopeKind);
  if (filter.scopeId !== undefined) query = query.where('webhooks.scope_id', '=', filter.scopeId);
  return query;
}

/** The webhook when `managed` lets the caller see it. */
export function findManagedWebhook(
  db: Executor,
  id: string,
  managed: WebhookFilter,
): Promise<WebhookViewRow | undefined> {
  let query = viewQuery(db).where('webhooks.id', '=', id);
  if (managed !== null) query = query.where(managed);
  return query.executeTakeFirst();
}

export function listWebhooks(
  db: Executor,
  filter: WebhookListFilter,
  limit: number,
  offset: number,
): Promise<WebhookViewRow[]> {
  return applyFilter(db, filter)
    .innerJoin('users', 'users.id', 'webhooks.created_by')
    .selectAll('webhooks')
    .select('users.username as created_by_username')
    .orderBy('webhooks.created_at', 'desc')
    .orderBy('webhooks.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

/** A count over the caller's manageable webhooks only: at most 20 per scope, never the whole table for users. */
export async function countWebhooks(db: Executor, filter: WebhookListFilter): Promise<number> {
  const row = await applyFilter(db, filter)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function countWebhooksInScope(
  db: Executor,
  kind: WebhookScopeKind,
  scopeId: string | null,
): Promise<number> {
  const row = await db
    .selectFrom('webhooks')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('scope_kind', '=', kind)
    .where((eb) => (scopeId === null ? eb('scope_id', 'is', null) : eb('scope_id', '=', scopeId)))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function insertWebhook(db: Executor, row: Insertable<WebhooksTable>): Promise<void> {
  await db.insertInto('webhooks').values(row).execute();
}

export type WebhookChanges = Partial<
  Pick<
    WebhooksTable,
    'url' | 'events' | 'description' | 'format' | 'active' | 'disabled_reason' | 'consecutive_failures'
  >
> & { updated_at: string };

export async function updateWebhook(db: Executor, id: string, changes: WebhookChanges): Promise<boolean> {
  const result = await db.updateTable('webhooks').set(changes).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * The current secret becomes the previous one (it still signs until `previousExpiresAt`) and `sealed` the
 * current one, in one statement, so two concurrent rotations cannot both move the same secret aside.
 */
export async function rotateSecret(
  db: Executor,
  id: string,
  sealed: string,
  previousExpiresAt: string,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('webhooks')
    .set((eb) => ({
      previous_secret_encrypted: eb.ref('secret_encrypted'),
      previous_secret_expires_at: previousExpiresAt,
      secret_encrypted: sealed,
      updated_at: at,
    }))
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deliveries go with it (ON DELETE CASCADE). */
export async function deleteWebhook(db: Executor, id: string): Promise<boolean> {
  const result = await db.deleteFrom('webhooks').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** For the deletion of a scope's object (team, resource, server): its webhooks have nobody left to manage them. */
export async function deleteWebhooksOfScope(
  db: Executor,
  kind: Exclude<WebhookScopeKind, 'PLATFORM'>,
  scopeId: string,
): Promise<void> {
  await db.deleteFrom('webhooks').where('scope_kind', '=', kind).where('scope_id', '=', scopeId).execute();
}

/** The ping's event is delivered to its one webhook, never fanned out: mark it dispatched at once. */
export async function markEventDispatched(db: Executor, eventId: string, at: string): Promise<void> {
  await db.updateTable('events').set({ dispatched_at: at }).where('id', '=', eventId).execute();
}

const DELIVERY_COLUMNS = [
  'id',
  'event_id',
  'event_type',
  'status',
  'attempts',
  'last_attempt_at',
  'next_attempt_at',
  'last_response_status',
  'last_error',
  'duration_ms',
  'redelivery_of',
  'created_at',
] as const;

export type DeliveryRow = Pick<Selectable<DB['webhook_deliveries']>, (typeof DELIVERY_COLUMNS)[number]>;

export function listDeliveries(
  db: Executor,
  webhookId: string,
  status: DeliveryStatus | undefined,
  limit: number,
  offset: number,
): Promise<DeliveryRow[]> {
  let query = db
    .selectFrom('webhook_deliveries')
    .select(DELIVERY_COLUMNS)
    .where('webhook_id', '=', webhookId);
  if (status !== undefined) query = query.where('status', '=', status);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute();
}

export async function countDeliveries(
  db: Executor,
  webhookId: string,
  status: DeliveryStatus | undefined,
): Promise<number> {
  let query = db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('webhook_id', '=', webhookId);
  if (status !== undefined) query = query.where('status', '=', status);
  return Number((await query.executeTakeFirstOrThrow()).count);
}

export function findDelivery(
  db: Executor,
  webhookId: string,
  deliveryId: string,
): Promise<{ id: string; event_id: string; event_type: string } | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .select(['id', 'event_id', 'event_type'])
    .where('id', '=', deliveryId)
    .where('webhook_id', '=', webhookId)
    .executeTakeFirst();
}

/**
 * Deletes webhooks whose resource, server or team no longer exists, once the fan-out has caught up and none of
 * their deliveries is pending (so the deletion event itself went out first). Returns how many.
 */
export async function deleteOrphanedWebhooks(db: Executor): Promise<number> {
  const result = await db
    .deleteFrom('webhooks')
    .where((eb) =>
      eb.or([
        eb.and([
          eb('scope_kind', '=', 'RESOURCE'),
          eb.not(
            eb.exists(
              eb.selectFrom('resources').select('id').whereRef('resources.id', '=', 'webhooks.scope_id'),
            ),
          ),
        ]),
        eb.and([
          eb('scope_kind', '=', 'SERVER'),
          eb.not(
            eb.exists(eb.selectFrom('servers').select('id').whereRef('servers.id', '=', 'webhooks.scope_id')),
          ),
        ]),
        eb.and([
          eb('scope_kind', '=', 'TEAM'),
          eb.not(
            eb.exists(eb.selectFrom('teams').select('id').whereRef('teams.id', '=', 'webhooks.scope_id')),
          ),
        ]),
      ]),
    )
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('webhook_deliveries')
            .select('webhook_deliveries.id')
            .whereRef('webhook_deliveries.webhook_id', '=', 'webhooks.id')
            .where('webhook_deliveries.status', '=', 'PENDING'),
        ),
      ),
    )
    .where((eb) =>
      eb.not(
        eb.exists(eb.selectFrom('events').select('events.id').where('events.dispatched_at', 'is', null)),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
