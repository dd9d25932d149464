import type { DeliveryRow, WebhookViewRow } from './webhooks.repo.js';

/** The stored JSON array of subscribed types. */
export const parseEvents = (stored: string): string[] => JSON.parse(stored) as string[];

/** Never the secret: only the create answer adds it. */
export const toWebhook = (row: WebhookViewRow) => ({
  id: row.id,
  url: row.url,
  events: parseEvents(row.events),
  scope: { kind: row.scope_kind, id: row.scope_id },
  description: row.description,
  format: row.format,
  active: Boolean(row.active),
  disabledReason: row.disabled_reason,
  consecutiveFailures: row.consecutive_failures,
  createdBy: { id: row.created_by, username: row.created_by_username },
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export type WebhookView = ReturnType<typeof toWebhook>;

export const toDelivery = (row: DeliveryRow) => ({
  id: row.id,
  eventId: row.event_id,
  eventType: row.event_type,
  status: row.status,
  attempts: row.attempts,
  lastAttemptAt: row.last_attempt_at,
  nextAttemptAt: row.next_attempt_at,
  lastResponseStatus: row.last_response_status,
  lastError: row.last_error,
  durationMs: row.duration_ms,
  redeliveryOf: row.redelivery_of,
  createdAt: row.created_at,
});
