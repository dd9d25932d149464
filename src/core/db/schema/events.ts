// Row types as Kysely sees them; ../schema.ts gathers them into DB.

/**
 * Who may read an event besides moderators (core/events/visibility.ts):
 * SUBJECT: whoever can see its subject now; REPORT: the reporter; INVITATION: the team's OWNER/ADMIN and the
 * invitee; THREAD: those who can read the moderation thread; MODERATORS: MODERATOR+ only (internal thread
 * messages); NONE: nobody through /events (webhook pings).
 */
export type EventAudience = 'SUBJECT' | 'REPORT' | 'INVITATION' | 'THREAD' | 'MODERATORS' | 'NONE';

/** The event log, written in the same transaction as each change (spec/extensions.md §1.1). */
export interface EventsTable {
  /** UUIDv7: time-ordered, the cursor of GET /events. */
  id: string;
  type: string;
  created_at: string;
  actor_id: string | null;
  /** The actor's username when the event happened. */
  actor_username: string | null;
  subject_kind: string;
  subject_id: string;
  /** JSON object. */
  data: string;
  /** The resource the subject is or belongs to (resource, version and file events). */
  resource_id: string | null;
  version_id: string | null;
  server_id: string | null;
  /** The team the subject is or belonged to when the event happened (team events, team-owned things). */
  team_id: string | null;
  /** The user the subject is or belonged to when the event happened (user events, user-owned things). */
  user_id: string | null;
  audience: EventAudience;
  /** The reporter (REPORT) or the invitee (INVITATION). */
  audience_user_id: string | null;
  /** Whether the public could see the subject when the event happened: decides once the subject is gone. */
  subject_public: boolean | number;
  /** Set once the webhook fan-out has turned the event into deliveries. */
  dispatched_at: string | null;
}

export type WebhookScopeKind = 'USER' | 'TEAM' | 'RESOURCE' | 'SERVER' | 'PLATFORM';
export type WebhookFormat = 'standard' | 'discord';

export interface WebhooksTable {
  id: string;
  /** The creator: deliveries carry only what this user could see at delivery time. */
  created_by: string;
  scope_kind: WebhookScopeKind;
  /** The user, team, resource or server id; null for PLATFORM. */
  scope_id: string | null;
  url: string;
  /** JSON array of event types, or ["*"]. */
  events: string;
  description: string | null;
  format: WebhookFormat;
  active: boolean | number;
  disabled_reason: string | null;
  /** AES-256-GCM under a key derived from SECRET (core/events/secret-box.ts). */
  secret_encrypted: string;
  /** After a rotation the old secret also signs until previous_secret_expires_at. */
  previous_secret_encrypted: string | null;
  previous_secret_expires_at: string | null;
  consecutive_failures: number;
  /** A process is sending one of its deliveries until then (one in flight per webhook, in event order). */
  busy_until: string | null;
  created_at: string;
  updated_at: string;
}

export type DeliveryStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_response_status: number | null;
  /** The first 1 KB of the last response body. */
  last_response_body: string | null;
  last_error: string | null;
  duration_ms: number | null;
  /** The delivery this one re-sends (POST …/redeliver); null for the fan-out's own. */
  redelivery_of: string | null;
  created_at: string;
}
