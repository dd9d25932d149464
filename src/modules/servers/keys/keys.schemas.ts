// Request and response shapes of server keys and heartbeats (spec/extensions.md §3).
import { Type } from 'typebox';
import { Id, Nullable, Timestamp, named, ref } from '../../../core/http/schemas.js';
import { MAX_PLAYERS } from '../servers.schemas.js';

export const ServerKey = named(
  'ServerKey',
  Type.Object({
    id: Id,
    name: Type.String(),
    prefix: Type.String({ description: 'First characters of the key (sk_…), to recognise it' }),
    createdAt: Timestamp,
    lastUsedAt: Nullable(Timestamp),
  }),
);

export const ServerKeyList = Type.Object({ keys: Type.Array(ref(ServerKey)) });

export const CreatedServerKey = Type.Object({
  id: Id,
  name: Type.String(),
  key: Type.String({
    description: 'The server key ("sk_" + 40 base62 characters). Shown only in this response: store it now.',
  }),
  createdAt: Timestamp,
});

export const CreateServerKeyBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 64, description: 'What the key is for, e.g. "lobby-1"' }) },
  { additionalProperties: false },
);

export const ServerKeyParams = Type.Object({ id: Id, keyId: Id });

export const HeartbeatHeaders = Type.Object({
  'x-server-key': Type.Optional(
    Type.String({ description: 'A key of the server (POST /servers/:id/keys); missing or unknown: 401' }),
  ),
});

export const HeartbeatBody = Type.Object(
  {
    onlinePlayers: Type.Integer({ minimum: 0, maximum: MAX_PLAYERS, description: 'At most maxPlayers' }),
    maxPlayers: Type.Integer({ minimum: 0, maximum: MAX_PLAYERS }),
    version: Type.Optional(Type.String({ maxLength: 64, description: 'Game version, e.g. "1.21.4"' })),
    motd: Type.Optional(
      Type.String({
        maxLength: 256,
        description:
          'Message of the day; stored as plain text: § formatting codes, control characters (but one line ' +
          'break) and bidirectional overrides removed, at most two lines',
      }),
    ),
    latencyMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 60_000 })),
  },
  { additionalProperties: false },
);

export const HeartbeatAccepted = Type.Object({
  serverId: Id,
  online: Type.Literal(true),
  nextHeartbeatAfter: Type.String({
    format: 'date-time',
    description: 'The earliest time the next heartbeat is accepted (now + 30 s)',
  }),
});
