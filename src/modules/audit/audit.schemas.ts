import { Type } from 'typebox';
import { Id, Limit, Nullable, Offset, StringEnum, Timestamp, named, ref } from '../../core/http/schemas.js';
import { AUDIT_ACTIONS, AUDIT_SUBJECT_KINDS } from './actions.js';

export const AuditQuery = Type.Object(
  {
    actorId: Type.Optional(Id),
    action: Type.Optional(StringEnum(AUDIT_ACTIONS)),
    subjectKind: Type.Optional(StringEnum(AUDIT_SUBJECT_KINDS)),
    subjectId: Type.Optional(Id),
    since: Type.Optional({ ...Timestamp, description: 'Entries at or after this time' }),
    until: Type.Optional({ ...Timestamp, description: 'Entries at or before this time' }),
    limit: Type.Optional(Limit()),
    offset: Type.Optional(Offset),
  },
  { additionalProperties: false },
);

const Summary = Nullable(
  Type.Record(Type.String(), Type.Unknown(), {
    description:
      'The changed fields only; null when the subject did not exist before or no longer exists after',
  }),
);

export const AuditEntry = named(
  'AuditEntry',
  Type.Object({
    id: Id,
    at: Timestamp,
    actor: Nullable(
      Type.Object(
        { id: Id, username: Nullable(Type.String()) },
        { description: 'username is null when the account no longer exists' },
      ),
    ),
    action: StringEnum(AUDIT_ACTIONS),
    subjectKind: StringEnum(AUDIT_SUBJECT_KINDS),
    subjectId: Id,
    before: Summary,
    after: Summary,
  }),
);

export const AuditList = named(
  'AuditList',
  Type.Object({ entries: Type.Array(ref(AuditEntry)), total: Type.Integer() }),
);
