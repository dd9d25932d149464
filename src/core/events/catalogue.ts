// Every event type the service records (spec/extensions.md §1.1), what its subject is, and who besides moderators
// may read it. A new kind of event is one more entry here and one recordEvent call where its change is written:
// /events, webhooks and their visibility rules pick it up from this table.
import type { EventAudience } from '../db/schema.js';

export type SubjectKind = 'resource' | 'version' | 'file' | 'server' | 'team' | 'report' | 'user' | 'webhook';

interface EventTypeInfo {
  subject: SubjectKind;
  audience: EventAudience;
}

const subjectOf = (subject: SubjectKind, audience: EventAudience = 'SUBJECT'): EventTypeInfo => ({
  subject,
  audience,
});

export const EVENT_TYPES = {
  'resource.created': subjectOf('resource'),
  'resource.updated': subjectOf('resource'),
  'resource.deleted': subjectOf('resource'),
  'resource.moderated': subjectOf('resource'),
  'version.created': subjectOf('version'),
  'version.submitted': subjectOf('version'),
  'version.approved': subjectOf('version'),
  'version.rejected': subjectOf('version'),
  'version.archived': subjectOf('version'),
  'version.deleted': subjectOf('version'),
  'version.latest_changed': subjectOf('version'),
  'file.uploaded': subjectOf('file'),
  'file.deleted': subjectOf('file'),
  // A scan found malware (spec/extensions.md §2.4): for moderators only, whatever the subject's visibility.
  'file.infected': subjectOf('file', 'MODERATORS'),
  'server.created': subjectOf('server'),
  'server.updated': subjectOf('server'),
  'server.deleted': subjectOf('server'),
  'server.moderated': subjectOf('server'),
  'server.transferred': subjectOf('server'),
  'server.went_online': subjectOf('server'),
  'server.went_offline': subjectOf('server'),
  'server.voted': subjectOf('server'),
  'team.member_added': subjectOf('team'),
  'team.member_removed': subjectOf('team'),
  'team.member_role_changed': subjectOf('team'),
  'team.invitation_created': subjectOf('team', 'INVITATION'),
  'team.invitation_responded': subjectOf('team', 'INVITATION'),
  'report.created': subjectOf('report', 'REPORT'),
  'report.updated': subjectOf('report', 'REPORT'),
  'badge.awarded': subjectOf('user'),
  'badge.revoked': subjectOf('user'),
  'user.followed': subjectOf('user'),
  // The subject is the resource, version or server whose thread it is (the kind comes from the call). An
  // internal message's event is recorded with the narrower audience MODERATORS (moderation/threads).
  'moderation.message_posted': subjectOf('resource', 'THREAD'),
  // Sent by POST /webhooks/:id/ping only; never listed by /events.
  'webhook.ping': subjectOf('webhook', 'NONE'),
} as const satisfies Record<string, EventTypeInfo>;

export type EventType = keyof typeof EVENT_TYPES;

/** The types a client may subscribe to or filter by (everything but the ping). */
export const SUBSCRIBABLE_EVENT_TYPES = (Object.keys(EVENT_TYPES) as EventType[]).filter(
  (type) => EVENT_TYPES[type].audience !== 'NONE',
);

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(EVENT_TYPES, value);
}
