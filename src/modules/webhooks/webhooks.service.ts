// Webhook management (spec/extensions.md §1.2): create, read, edit, delete, rotate the secret, ping, and the
// delivery log with redelivery. Who manages what is core/auth/webhook-access.ts; sending is ./delivery/.
import type { Kysely } from 'kysely';
import type { Access } from '../../core/auth/access.js';
import type { Actor } from '../../core/auth/authenticate.js';
import type { ResourceAccess } from '../../core/auth/resource-access.js';
import type { ServerAccess } from '../../core/auth/server-access.js';
import { createWebhookAccess } from '../../core/auth/webhook-access.js';
import type { WebhookScope } from '../../core/auth/webhook-access.js';
import type { Clock } from '../../core/clock.js';
import type { DialectName } from '../../core/db/database.js';
import { lockForUpdate } from '../../core/db/dialect.js';
import type { DB, DeliveryStatus, WebhookFormat, WebhookScopeKind } from '../../core/db/schema.js';
import { recordEvent } from '../../core/events/record.js';
import { newWebhookSecret } from '../../core/events/secret-box.js';
import type { SecretBox } from '../../core/events/secret-box.js';
import { badRequest, conflict, notFound } from '../../core/http/errors.js';
import { newId } from '../../core/ids.js';
import { requireAllowedTarget } from '../../core/outbound/target.js';
import type { Lookup } from '../../core/outbound/target.js';
import { insertDeliveries } from './delivery/deliveries.repo.js';
import { toDelivery, toWebhook } from './webhooks.mapper.js';
import type { WebhookView } from './webhooks.mapper.js';
import * as repo from './webhooks.repo.js';
import type { WebhookChanges, WebhookViewRow } from './webhooks.repo.js';
import { ALL_EVENTS, MAX_WEBHOOKS_PER_SCOPE } from './webhooks.schemas.js';

/** How long the secret replaced by a rotation keeps signing (a second signature). */
export const PREVIOUS_SECRET_TTL_MS = 24 * 60 * 60 * 1000;

export interface NewWebhook {
  url: string;
  events: string[];
  scope: { kind: WebhookScopeKind; id?: string };
  description?: string | null;
  format?: WebhookFormat;
  active?: boolean;
}

export interface WebhookPatch {
  url?: string;
  events?: string[];
  description?: string | null;
  format?: WebhookFormat;
  active?: boolean;
}

export interface WebhookListOptions {
  scopeKind?: WebhookScopeKind | undefined;
  scopeId?: string | undefined;
  limit: number;
  offset: number;
}

/** Duplicates dropped, first occurrence kept; "*" stands alone (the schema has already checked every name). */
function normalizeEvents(events: readonly string[]): string[] {
  const unique = [...new Set(events)];
  if (unique.includes(ALL_EVENTS) && unique.length > 1) {
    throw badRequest('"*" subscribes to every event type and cannot be combined with other types', {
      fields: { events: 'either ["*"] or a list of event types' },
    });
  }
  return unique;
}

/** An empty description means "none", like null. */
const normalizeDescription = (description: string | null | undefined) =>
  description === undefined || description === null || description === '' ? null : description;

export type WebhooksService = ReturnType<typeof createWebhooksService>;

export function createWebhooksService(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  clock: Clock;
  access: Access;
  resourceAccess: ResourceAccess;
  serverAccess: ServerAccess;
  secretBox: SecretBox;
  /** OUTBOUND_ALLOW_PRIVATE: private and loopback targets (and plain http) are accepted. */
  outboundAllowPrivate: boolean;
  /** Injected DNS for tests; the system resolver otherwise. */
  lookup?: Lookup;
}) {
  const { db, dialect, clock, secretBox } = deps;
  const webhookAccess = createWebhookAccess(deps);
  const targetOptions = {
    allowPrivate: deps.outboundAllowPrivate,
    ...(deps.lookup !== undefined ? { lookup: deps.lookup } : {}),
  };

  /** A webhook the caller does not manage does not exist for them (webhooks are private). */
  async function requireManaged(actor: Actor, webhookId: string): Promise<WebhookViewRow> {
    const row = await repo.findManagedWebhook(db, webhookId, webhookAccess.managedBy(actor));
    if (row === undefined) throw notFound('Webhook');
    return row;
  }

  function requireActive(webhook: WebhookViewRow): void {
    if (!webhook.active) {
      throw conflict('The webhook is inactive; turn it on (PATCH active: true) first', 'WEBHOOK_INACTIVE');
    }
  }

  /** Serializes creations in one scope, so the limit holds under concurrent requests. */
  async function insertWithinLimit(scope: WebhookScope, row: Parameters<typeof repo.insertWebhook>[1]) {
    await db.transaction().execute(async (trx) => {
      await lockForUpdate(trx, dialect, `webhooks:${scope.kind}:${scope.id ?? ''}`);
      if ((await repo.countWebhooksInScope(trx, scope.kind, scope.id)) >= MAX_WEBHOOKS_PER_SCOPE) {
        throw conflict(
          `A ${scope.kind} scope can have at most ${MAX_WEBHOOKS_PER_SCOPE} webhooks; delete one first`,
          'LIMIT_REACHED',
          { limit: MAX_WEBHOOKS_PER_SCOPE },
        );
      }
      await repo.insertWebhook(trx, row);
    });
  }

  return {
    /** The webhook and its secret: the only answer that ever shows it. */
    async create(actor: Actor, input: NewWebhook): Promise<WebhookView & { secret: string }> {
      const events = normalizeEvents(input.events);
      const scope = await webhookAccess.authorizeScope(actor, input.scope);
      // After the permission check: a caller who may not create here learns nothing about the URL's host.
      await requireAllowedTarget(input.url, targetOptions);
      const secret = newWebhookSecret();
      const now = clock.now().toISOString();
      const id = newId();
      await insertWithinLimit(scope, {
        id,
        created_by: actor.userId,
        scope_kind: scope.kind,
        scope_id: scope.id,
        url: input.url,
        events: JSON.stringify(events),
        description: normalizeDescription(input.description),
        format: input.format ?? 'standard',
        active: input.active ?? true,
        disabled_reason: null,
        secret_encrypted: secretBox.seal(secret),
        previous_secret_encrypted: null,
        previous_secret_expires_at: null,
        consecutive_failures: 0,
        busy_until: null,
        created_at: now,
        updated_at: now,
      });
      const created = await repo.findManagedWebhook(db, id, null);
      // Deleted in the instant since the insert: as if it had never been created.
      if (created === undefined) throw notFound('Webhook');
      return { ...toWebhook(created), secret };
    },

    async list(actor: Actor, options: WebhookListOptions) {
      const filter = {
        managed: webhookAccess.managedBy(actor),
        scopeKind: options.scopeKind,
        scopeId: options.scopeId,
      };
      const [rows, total] = await Promise.all([
        repo.listWebhooks(db, filter, options.limit, options.offset),
        repo.countWebhooks(db, filter),
      ]);
      return { webhooks: rows.map(toWebhook), total };
    },

    async get(actor: Actor, webhookId: string): Promise<WebhookView> {
      return toWebhook(await requireManaged(actor, webhookId));
    },

    async update(actor: Actor, webhookId: string, patch: WebhookPatch): Promise<WebhookView> {
      const current = await requireManaged(actor, webhookId);
      if (patch.url !== undefined) await requireAllowedTarget(patch.url, targetOptions);
      const changes: Omit<WebhookChanges, 'updated_at'> = {
        ...(patch.url !== undefined ? { url: patch.url } : {}),
        ...(patch.events !== undefined ? { events: JSON.stringify(normalizeEvents(patch.events)) } : {}),
        ...(patch.description !== undefined ? { description: normalizeDescription(patch.description) } : {}),
        ...(patch.format !== undefined ? { format: patch.format } : {}),
        ...(patch.active !== undefined ? { active: patch.active } : {}),
        // Turning it on is a fresh start: the failure count that disabled it no longer applies.
        ...(patch.active === true ? { disabled_reason: null, consecutive_failures: 0 } : {}),
      };
      if (Object.keys(changes).length === 0) return toWebhook(current);
      const updated = { ...changes, updated_at: clock.now().toISOString() };
      if (!(await repo.updateWebhook(db, webhookId, updated))) throw notFound('Webhook');
      return toWebhook({ ...current, ...updated });
    },

    async remove(actor: Actor, webhookId: string): Promise<void> {
      await requireManaged(actor, webhookId);
      if (!(await repo.deleteWebhook(db, webhookId))) throw notFound('Webhook');
    },

    async rotateSecret(actor: Actor, webhookId: string): Promise<{ secret: string }> {
      await requireManaged(actor, webhookId);
      const secret = newWebhookSecret();
      const now = clock.now();
      const previousExpiresAt = new Date(now.getTime() + PREVIOUS_SECRET_TTL_MS).toISOString();
      const rotated = await repo.rotateSecret(
        db,
        webhookId,
        secretBox.seal(secret),
        previousExpiresAt,
        now.toISOString(),
      );
      if (!rotated) throw notFound('Webhook');
      return { secret };
    },

    /**
     * A webhook.ping event for this webhook alone: recorded already dispatched, so the fan-out never offers it
     * to other webhooks, with its one delivery queued in the same transaction.
     */
    async ping(actor: Actor, webhookId: string): Promise<{ deliveryId: string }> {
      const webhook = await requireManaged(actor, webhookId);
      requireActive(webhook);
      const now = clock.now().toISOString();
      const [deliveryId] = await db.transaction().execute(async (trx) => {
        const eventId = await recordEvent(trx, {
          type: 'webhook.ping',
          at: now,
          actorId: actor.userId,
          subjectId: webhookId,
          data: { webhookId },
          placement: { subjectPublic: false },
        });
        await repo.markEventDispatched(trx, eventId, now);
        return insertDeliveries(trx, [{ webhookId, eventId, eventType: 'webhook.ping', now }]);
      });
      return { deliveryId: deliveryId! };
    },

    async listDeliveries(
      actor: Actor,
      webhookId: string,
      options: { status?: DeliveryStatus | undefined; limit: number; offset: number },
    ) {
      await requireManaged(actor, webhookId);
      const [rows, total] = await Promise.all([
        repo.listDeliveries(db, webhookId, options.status, options.limit, options.offset),
        repo.countDeliveries(db, webhookId, options.status),
      ]);
      return { deliveries: rows.map(toDelivery), total };
    },

    /** A new delivery of the same event, due at once; the original keeps its own history. */
    async redeliver(actor: Actor, webhookId: string, deliveryId: string): Promise<{ deliveryId: string }> {
      const webhook = await requireManaged(actor, webhookId);
      const delivery = await repo.findDelivery(db, webhookId, deliveryId);
      if (delivery === undefined) throw notFound('Delivery');
      requireActive(webhook);
      const [id] = await insertDeliveries(db, [
        {
          webhookId,
          eventId: delivery.event_id,
          eventType: delivery.event_type,
          redeliveryOf: delivery.id,
          now: clock.now().toISOString(),
        },
      ]);
      return { deliveryId: id! };
    },
  };
}
