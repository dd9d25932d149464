// API shapes of the moderation threads (spec/extensions.md §4).
import { Type } from 'typebox';
import { ROLES } from '../../../core/auth/roles.js';
import {
  Id,
  Limit,
  Nullable,
  Offset,
  PageMeta,
  StringEnum,
  Timestamp,
  named,
  ref,
} from '../../../core/http/schemas.js';
import { MAX_MESSAGE_LENGTH } from './message-body.js';

const IdOf = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });

export const ThreadMessage = named(
  'ModerationThreadMessage',
  Type.Object({
    id: Id,
    author: Nullable(
      Type.Object(
        {
          id: Id,
          username: Type.String(),
          role: StringEnum(ROLES, { description: 'The author’s platform role now' }),
        },
        { description: 'null for an automatic action’s message, and once the account is gone' },
      ),
    ),
    body: Type.String({
      description: 'Markdown, sanitized like a version changelog (no scripts, no javascript: or data: links)',
    }),
    versionId: Nullable(IdOf('The version the message is about (resource threads only)')),
    internal: Type.Boolean({ description: 'Between moderators only: never shown to the owner side' }),
    automatic: Type.Boolean({
      description: 'Posted by a moderation action from its reason (or, internal, its notes)',
    }),
    createdAt: Timestamp,
  }),
);

export const ThreadQuery = Type.Object({
  limit: Type.Optional(Limit(50)),
  offset: Type.Optional(Offset),
});

export const Thread = Type.Object({
  messages: Type.Array(ref(ThreadMessage), { description: 'Oldest first (newest last)' }),
  total: Type.Integer({ description: 'Messages the caller can see in the thread' }),
  meta: ref(PageMeta),
});

const Body = Type.String({
  minLength: 1,
  maxLength: MAX_MESSAGE_LENGTH,
  description: `Markdown, 1–${MAX_MESSAGE_LENGTH.toLocaleString('en')} characters; sanitized like a version changelog`,
});
const Internal = Type.Boolean({
  default: false,
  description:
    'Moderators only (403 for the owner side): a note between moderators, never shown to the owner side',
});

export const PostResourceMessageBody = Type.Object(
  {
    body: Body,
    versionId: Type.Optional(Nullable(IdOf('A version of this resource (400 otherwise)'))),
    internal: Type.Optional(Internal),
  },
  { additionalProperties: false },
);

export const PostServerMessageBody = Type.Object(
  { body: Body, internal: Type.Optional(Internal) },
  { additionalProperties: false },
);
