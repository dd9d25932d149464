import { Type } from 'typebox';
import {
  Id,
  LimitOffsetQuery,
  Nullable,
  PageMeta,
  StringEnum,
  Timestamp,
  named,
  ref,
} from '../../../core/http/schemas.js';
import { SERVER_STATUSES, Server, ServerStatusName } from '../servers.schemas.js';

const Notes = Type.String({ maxLength: 2000, description: 'Moderator notes, kept in the history' });
const Reason = Type.String({
  minLength: 1,
  maxLength: 1000,
  description: 'Why; kept in the history and shown to the owner side as statusReason',
});

export const ApproveServerBody = Type.Object(
  { notes: Type.Optional(Nullable(Notes)) },
  { additionalProperties: false },
);

export const RejectOrSuspendServerBody = Type.Object(
  { reason: Reason, notes: Type.Optional(Nullable(Notes)) },
  { additionalProperties: false },
);

export const ServerModerationEvent = named(
  'ServerModerationEvent',
  Type.Object({
    id: Id,
    action: StringEnum(['APPROVE', 'REJECT', 'SUSPEND', 'RESUBMIT'] as const, {
      description: 'RESUBMIT: the owner side edited a rejected server, which sent it back to PENDING',
    }),
    fromStatus: ServerStatusName,
    toStatus: ServerStatusName,
    reason: Nullable(Type.String()),
    notes: Nullable(Type.String()),
    moderator: Nullable(
      Type.Object({ id: Id, username: Type.String() }, { description: 'Null for RESUBMIT' }),
    ),
    createdAt: Timestamp,
  }),
);

export const ServerModerationHistory = Type.Object({
  history: Type.Array(ref(ServerModerationEvent), { description: 'Oldest first' }),
});

export const ModerationStatusParams = Type.Object({ status: StringEnum(SERVER_STATUSES) });

export const ModerationQueueQuery = LimitOffsetQuery;

export const ModerationQueue = Type.Object({
  servers: Type.Array(ref(Server)),
  total: Type.Integer(),
  meta: ref(PageMeta),
});
