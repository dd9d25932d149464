// The outbox: recordEvent inserts one event in the caller's transaction, so an event exists if and only if its
// change committed. Delivery to webhooks happens later, from the table (core/events/dispatch.ts).
import type { Kysely, Transaction } from 'kysely';
import type { DB, EventAudience, ResourceStatus, ServerStatus } from '../db/schema.js';
import { newId } from '../ids.js';
import { EVENT_TYPES } from './catalogue.js';
import type { EventType, SubjectKind } from './catalogue.js';

type Executor = Kysely<DB> | Transaction<DB>;

/** What the subject is or belongs to: GET /events filters by these, webhook scopes match on them. */
export interface EventPlacement {
  resourceId?: string;
  versionId?: string;
  serverId?: string;
  /** The team the subject is, or the team that owns it. */
  teamId?: string;
  /** The user the subject is, or the user who owns it. */
  userId?: string;
  /** Whether the public can see the subject as of this change (decides visibility once the subject is gone). */
  subjectPublic: boolean;
}

export interface NewEvent {
  type: EventType;
  /** The change's time, from the service's clock. */
  at: string;
  actorId: string | null;
  /** Defaults to the type's subject kind (moderation.message_posted names its own). */
  subjectKind?: SubjectKind;
  subjectId: string;
  data: Record<string, unknown>;
  placement: EventPlacement;
  /** The reporter (report.*) or the invitee (team.invitation_*). */
  audienceUserId?: string;
  /** Narrows the type's audience for this one event (an internal thread message: MODERATORS). */
  audience?: EventAudience;
}

interface OwnedRow {
  id: string;
  owner_type: 'USER' | 'TEAM';
  owner_id: string;
}

function ownerPlacement(row: OwnedRow): Pick<EventPlacement, 'teamId' | 'userId'> {
  return row.owner_type === 'TEAM' ? { teamId: row.owner_id } : { userId: row.owner_id };
}

/** Placement of a resource's own events. */
export function resourcePlacement(resource: OwnedRow & { status: ResourceStatus }): EventPlacement {
  return {
    resourceId: resource.id,
    ...ownerPlacement(resource),
    subjectPublic: resource.status === 'APPROVED',
  };
}

/** Placement of a version's (and its files') events: public while the resource is APPROVED and the version is. */
export function versionPlacement(
  resource: OwnedRow & { status: ResourceStatus },
  version: { id: string; status: string },
): EventPlacement {
  return {
    ...resourcePlacement(resource),
    versionId: version.id,
    subjectPublic:
      resource.status === 'APPROVED' && (version.status === 'APPROVED' || version.status === 'ARCHIVED'),
  };
}

export function serverPlacement(server: OwnedRow & { status: ServerStatus }): EventPlacement {
  return { serverId: server.id, ...ownerPlacement(server), subjectPublic: server.status === 'APPROVED' };
}

/** Inserts the event in `executor`'s transaction; returns its id. The actor's username is read in the insert. */
export async function recordEvent(executor: Executor, event: NewEvent): Promise<string> {
  const id = newId();
  const { placement } = event;
  await executor
    .insertInto('events')
    .values({
      id,
      type: event.type,
      created_at: event.at,
      actor_id: event.actorId,
      actor_username:
        event.actorId === null
          ? null
          : executor.selectFrom('users').select('username').where('id', '=', event.actorId),
      subject_kind: event.subjectKind ?? EVENT_TYPES[event.type].subject,
      subject_id: event.subjectId,
      data: JSON.stringify(event.data),
      resource_id: placement.resourceId ?? null,
      version_id: placement.versionId ?? null,
      server_id: placement.serverId ?? null,
      team_id: placement.teamId ?? null,
      user_id: placement.userId ?? null,
      audience: event.audience ?? EVENT_TYPES[event.type].audience,
      audience_user_id: event.audienceUserId ?? null,
      subject_public: placement.subjectPublic,
      dispatched_at: null,
    })
    .execute();
  return id;
}
