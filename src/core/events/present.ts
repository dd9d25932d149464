// The event object as clients see it, in /events and in webhook bodies (spec/extensions.md §1.1).
import type { EventsTable } from '../db/schema.js';

export interface EventObject {
  id: string;
  type: string;
  createdAt: string;
  actor: { id: string; username: string | null } | null;
  subject: { kind: string; id: string };
  data: Record<string, unknown>;
}

export type PresentableEvent = Pick<
  EventsTable,
  'id' | 'type' | 'created_at' | 'actor_id' | 'actor_username' | 'subject_kind' | 'subject_id' | 'data'
>;

export function presentEvent(row: PresentableEvent): EventObject {
  return {
    id: row.id,
    type: row.type,
    createdAt: row.created_at,
    actor: row.actor_id === null ? null : { id: row.actor_id, username: row.actor_username },
    subject: { kind: row.subject_kind, id: row.subject_id },
    data: JSON.parse(row.data) as Record<string, unknown>,
  };
}
