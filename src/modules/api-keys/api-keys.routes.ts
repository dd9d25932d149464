import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { typed } from '../../core/http/typed.js';
import { requireActor, requireUser } from '../../core/auth/authenticate.js';
import { SECURED } from '../../core/http/openapi.js';
import { Id, Name, Nullable, Timestamp, errors, named, ref } from '../../core/http/schemas.js';
import type { ApiKeysService } from './api-keys.service.js';

const tags = ['api-keys'];

const ScopeName = Type.Union(
  [
    Type.Literal('read'),
    Type.Literal('write'),
    Type.Literal('upload'),
    Type.Literal('moderate'),
    Type.Literal('admin'),
  ],
  {
    description:
      'read: every GET; write: every other method except uploads and moderation; upload: multipart uploads; ' +
      'moderate: routes needing MODERATOR+; admin: routes needing ADMIN+',
  },
);

const keyFields = {
  id: Id,
  name: Type.String(),
  prefix: Type.String({ description: 'First characters of the key, to recognise it' }),
  scopes: Type.Array(ScopeName, { description: 'What the key may do (cut down to what your role allows)' }),
  teamId: Nullable({
    ...Id,
    description: 'The team the key is bound to: it changes only that team and what it owns; reads act as you',
  }),
  createdAt: Timestamp,
  lastUsedAt: Nullable(Timestamp),
  lastUsedIp: Nullable(
    Type.String({ description: 'Client address of the last use (updated at most once a minute)' }),
  ),
  expiresAt: Nullable(Timestamp),
};

const ApiKey = named('ApiKey', Type.Object(keyFields));

const ApiKeyWithSecret = Type.Object({
  ...keyFields,
  key: Type.String({
    description:
      'The API key: mk_ + 40 random base62 characters + a 6-character CRC32 checksum (docs/api-keys.md). ' +
      'Shown only in this response: store it now.',
  }),
});

const CreateApiKeyBody = Type.Object(
  {
    name: Name,
    expiresAt: Type.Optional(Timestamp),
    scopes: Type.Optional(
      Type.Array(ScopeName, {
        minItems: 1,
        uniqueItems: true,
        description:
          'Default: every scope your role allows (USER: read, write, upload; MODERATOR: + moderate; ADMIN: + admin) ' +
          'and, when created with an API key, that key holds. A scope beyond either is 403 SCOPE_NOT_ALLOWED.',
      }),
    ),
    teamId: Type.Optional({
      ...Id,
      description:
        'Bind the key to a team you are a member of (any team role: the key never exceeds your own rights). ' +
        'Unknown team: 404; not a member: 403.',
    }),
  },
  { additionalProperties: false },
);

const KeyParams = Type.Object({ keyId: Id });

export async function apiKeysRoutes(
  fastify: FastifyInstance,
  { apiKeys }: { apiKeys: ApiKeysService },
): Promise<void> {
  const app = typed(fastify);
  const common = { preHandler: requireUser };

  app.get(
    '/users/me/api-keys',
    {
      ...common,
      schema: {
        tags,
        summary: 'Your API keys (never the keys themselves)',
        description: 'Every live key with its scopes, team, and when and from where it was last used.',
        operationId: 'listApiKeys',
        security: SECURED,
        response: { 200: Type.Object({ apiKeys: Type.Array(ref(ApiKey)) }), ...errors(401, 403) },
      },
    },
    async (request) => ({ apiKeys: await apiKeys.list(requireActor(request).userId) }),
  );

  app.post(
    '/users/me/api-keys',
    {
      ...common,
      schema: {
        tags,
        summary: 'Create an API key; the key is shown once',
        description:
          "A request outside a key's scopes is refused with 403 INSUFFICIENT_SCOPE and `details.required` naming " +
          'the scope (or `team` when a team-bound key acts outside its team). Bearer session tokens hold every scope.',
        operationId: 'createApiKey',
        body: CreateApiKeyBody,
        security: SECURED,
        response: { 201: ApiKeyWithSecret, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const actor = requireActor(request);
      return reply.status(201).send(await apiKeys.create(actor.userId, request.body, actor));
    },
  );

  app.post(
    '/users/me/api-keys/:keyId/rotate',
    {
      ...common,
      schema: {
        tags,
        summary: 'Rotate an API key: a new secret for the same key',
        description:
          'Name, scopes, team and expiry are kept; the old secret fails on the very next request. The new key is ' +
          'shown only in this response. With an API key, only keys within its own scopes can be rotated (403 ' +
          'SCOPE_NOT_ALLOWED).',
        operationId: 'rotateApiKey',
        params: KeyParams,
        security: SECURED,
        response: { 200: ApiKeyWithSecret, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const actor = requireActor(request);
      return apiKeys.rotate(actor.userId, request.params.keyId, actor);
    },
  );

  app.delete(
    '/users/me/api-keys/:keyId',
    {
      ...common,
      schema: {
        tags,
        summary: 'Revoke an API key; it fails on the very next request',
        description:
          'Revokes one of your API keys; the very next request made with it gets 401. Needs credentials; ' +
          'only your own keys.',
        operationId: 'deleteApiKey',
        params: KeyParams,
        security: SECURED,
        response: { 204: Type.Null(), ...errors(401, 404) },
      },
    },
    async (request, reply) => {
      await apiKeys.remove(requireActor(request).userId, request.params.keyId);
      return reply.status(204).send(null);
    },
  );
}
