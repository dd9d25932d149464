import { Type } from 'typebox';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../core/events/catalogue.js';
import {
  Id,
  Limit,
  Nullable,
  QueryList,
  StringEnum,
  Timestamp,
  named,
  ref,
} from '../../core/http/schemas.js';

export const EventTypeName = StringEnum(SUBSCRIBABLE_EVENT_TYPES, { description: 'Event type' });

/** A UUIDv7 event id, as given back by nextCursor. */
export const EventCursor = Type.String({
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
  description: 'An event id (UUIDv7): events after it are returned',
});

export const Event = named(
  'Event',
  Type.Object({
    id: Type.String({ description: 'UUIDv7: time-ordered, the cursor of GET /events' }),
    type: Type.String({ description: 'One of the event types (see the events tag)' }),
    createdAt: Timestamp,
    actor: Nullable(
      Type.Object({
        id: Id,
        username: Nullable(Type.String({ description: 'The username when the event happened' })),
      }),
    ),
    subject: Type.Object({
      kind: Type.String({ description: 'resource, version, file, server, team, report, user or webhook' }),
      id: Id,
    }),
    data: Type.Record(Type.String(), Type.Unknown(), { description: 'Type-specific details' }),
  }),
);

export const EventListQuery = Type.Object({
  after: Type.Optional(EventCursor),
  types: Type.Optional(QueryList(EventTypeName)),
  resourceId: Type.Optional(Id),
  serverId: Type.Optional(Id),
  teamId: Type.Optional(Id),
  userId: Type.Optional(Id),
  limit: Type.Optional(Limit(50)),
});

export const EventList = named(
  'EventList',
  Type.Object({
    events: Type.Array(ref(Event)),
    nextCursor: Nullable(
      Type.String({
        description: 'Pass as `after` to continue; the given `after` (or null) when nothing is new',
      }),
    ),
  }),
);
