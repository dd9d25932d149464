// One delivery attempt: the event as its body (Standard Webhooks, signed; or a Discord embed), POSTed through the
// outbound guard, with the answer reduced to what the delivery log keeps.
import { Webhook as StandardWebhook } from 'standardwebhooks';
import type { EventsTable, WebhookFormat } from '../../../core/db/schema.js';
import { presentEvent } from '../../../core/events/present.js';
import type { EventObject } from '../../../core/events/present.js';
import { OutboundError, outboundPost } from '../../../core/outbound/post.js';
import type { Lookup } from '../../../core/outbound/target.js';

export const USER_AGENT = 'Marketplace-Webhooks/1.0';

export interface SendSettings {
  publicUrl: string;
  timeoutMs: number;
  maxBodyBytes: number;
  allowPrivate: boolean;
  lookup?: Lookup;
  /** Wall-clock time for webhook-timestamp: receivers check it against their own clock. */
  wallClock?: () => number;
}

export interface SendTarget {
  url: string;
  format: WebhookFormat;
  /** Current secret first, then the previous one while a rotation's overlap lasts. */
  secrets: string[];
}

export type SendResult =
  | { ok: boolean; status: number; body: string; durationMs: number }
  | { ok: false; error: string; durationMs: number };

/** Where a subject lives on this service, for Discord embeds. */
function subjectUrl(publicUrl: string, event: EventsTable): string {
  if (event.version_id !== null && event.resource_id !== null) {
    return `${publicUrl}/resources/${event.resource_id}/versions/${event.version_id}`;
  }
  if (event.resource_id !== null) return `${publicUrl}/resources/${event.resource_id}`;
  const collection: Record<string, string> = {
    server: 'servers',
    team: 'teams',
    user: 'users',
    report: 'reports',
    webhook: 'webhooks',
  };
  return `${publicUrl}/${collection[event.subject_kind] ?? 'events'}/${event.subject_id}`;
}

function discordBody(publicUrl: string, row: EventsTable, event: EventObject): string {
  const named = [event.data['name'], event.data['versionNumber'], event.data['fileName']].find(
    (value): value is string => typeof value === 'string',
  );
  const by = event.actor?.username ? ` by ${event.actor.username}` : '';
  return JSON.stringify({
    embeds: [
      {
        title: named === undefined ? event.type : `${event.type}: ${named}`.slice(0, 256),
        url: subjectUrl(publicUrl, row),
        description: `${event.subject.kind} ${event.subject.id}${by}`.slice(0, 4096),
        timestamp: event.createdAt,
      },
    ],
  });
}

/** The event object, with its data replaced by {truncated: true} when it would exceed the body limit. */
function standardBody(event: EventObject, maxBytes: number): string {
  const body = JSON.stringify(event);
  if (Buffer.byteLength(body) <= maxBytes) return body;
  return JSON.stringify({ ...event, data: { truncated: true } });
}

export async function sendDelivery(
  target: SendTarget,
  row: EventsTable,
  settings: SendSettings,
): Promise<SendResult> {
  const event = presentEvent(row);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': USER_AGENT };
  let body: string;
  if (target.format === 'discord') {
    body = discordBody(settings.publicUrl, row, event);
  } else {
    body = standardBody(event, settings.maxBodyBytes);
    const timestamp = new Date((settings.wallClock ?? Date.now)());
    headers['webhook-id'] = event.id;
    headers['webhook-timestamp'] = String(Math.floor(timestamp.getTime() / 1000));
    headers['webhook-signature'] = target.secrets
      .map((secret) => new StandardWebhook(secret).sign(event.id, timestamp, body))
      .join(' ');
  }
  try {
    const response = await outboundPost(target.url, {
      headers,
      body,
      timeoutMs: settings.timeoutMs,
      allowPrivate: settings.allowPrivate,
      ...(settings.lookup !== undefined ? { lookup: settings.lookup } : {}),
    });
    return {
      ok: response.status >= 200 && response.status < 300,
      status: response.status,
      body: response.body,
      durationMs: Math.round(response.durationMs),
    };
  } catch (error) {
    if (error instanceof OutboundError) {
      return {
        ok: false,
        error: `${error.code}: ${error.message}`,
        durationMs: Math.round(error.durationMs),
      };
    }
    throw error;
  }
}
