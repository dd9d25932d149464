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

/** Hours between two votes of one account, or of one client address, for one server. */
export const VOTE_COOLDOWN_HOURS = 24;

export const VoteBody = Type.Object(
  {
    username: Type.String({
      minLength: 1,
      maxLength: 32,
      // No control characters: the name goes into a Votifier payload and game-server logs.
      pattern: '^[^\\u0000-\\u001f\\u007f-\\u009f]+$',
      description: 'Your in-game name (1–32 characters, trimmed, no control characters), sent to Votifier',
    }),
  },
  { additionalProperties: false },
);

export const VoteResult = named(
  'VoteResult',
  Type.Object({
    voteCount: Type.Integer({ description: "The server's votes this calendar month (UTC)" }),
    totalVotes: Type.Integer({ description: "The server's votes of all time" }),
    nextVoteAt: Timestamp,
  }),
);

export const VOTE_DELIVERY_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;

export const VoteDelivery = named(
  'VoteDelivery',
  Type.Object(
    {
      status: StringEnum(VOTE_DELIVERY_STATUSES),
      attempts: Type.Integer(),
      lastError: Nullable(Type.String()),
    },
    { description: 'The Votifier delivery of the vote; null when the server had no enabled Votifier then' },
  ),
);

export const Vote = named(
  'ServerVote',
  Type.Object({
    id: Id,
    username: Type.String({ description: 'The in-game name the voter entered' }),
    user: Type.Object({ id: Id, username: Type.String() }, { description: 'The voting account' }),
    createdAt: Timestamp,
    delivery: Nullable(ref(VoteDelivery)),
  }),
);

export const VoteList = Type.Object({
  votes: Type.Array(ref(Vote)),
  total: Type.Integer(),
  meta: ref(PageMeta),
});

export const VoteListQuery = LimitOffsetQuery;

export const VotifierBody = Type.Object(
  {
    host: Type.String({
      minLength: 1,
      maxLength: 253,
      description: 'Hostname or IP address (no brackets) of the Votifier listener',
    }),
    port: Type.Integer({ minimum: 1, maximum: 65535 }),
    token: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description:
          'The token shared with the Votifier listener (NuVotifier: the token in its config). Required when ' +
          'the server has no Votifier yet; omitted, the stored one is kept. Never returned.',
      }),
    ),
    enabled: Type.Optional(Type.Boolean({ default: true, description: 'Default true' })),
  },
  { additionalProperties: false },
);

export const Votifier = named(
  'Votifier',
  Type.Object({
    host: Type.String(),
    port: Type.Integer(),
    enabled: Type.Boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  }),
);
