import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { typed } from '../../core/http/typed.js';
import { requireActor, requireUser } from '../../core/auth/authenticate.js';
import { SECURED } from '../../core/http/openapi.js';
import { Id, Name, Nullable, Timestamp, errors, named, ref } from '../../core/http/schemas.js';
import type { ApiKeysService } from './api-keys.service.js';

const tags = ['api-keys'];

const ApiKey = named(
  'ApiKey',
  Type.Object({
    id: Id,
    name: Type.String(),
    prefix: Type.String({ description: 'First characters of the key, to recognise it' }),
    createdAt: Timestamp,
    lastUsedAt: Nullable(Timestamp),
    expiresAt: Nullable(Timestamp),
  }),
);

const CreatedApiKey = Type.Object({
  id: Id,
  name: Type.String(),
  prefix: Type.String(),
  key: Type.String({ description: 'The API key (mk_…). Shown only in this response: store it now.' }),
  createdAt: Timestamp,
  expiresAt: Nullable(Timestamp),
});

const CreateApiKeyBody = Type.Object(
  { name: Name, expiresAt: Type.Optional(Timestamp) },
  { additionalProperties: false },
);

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
        operationId: 'listApiKeys',
        security: SECURED,
        response: { 200: Type.Object({ apiKeys: Type.Array(ref(ApiKey)) }), ...errors(401) },
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
        operationId: 'createApiKey',
        body: CreateApiKeyBody,
        security: SECURED,
        response: { 201: CreatedApiKey, ...errors(400, 401, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await apiKeys.create(requireActor(request).userId, request.body)),
  );

  app.delete(
    '/users/me/api-keys/:keyId',
    {
      ...common,
      schema: {
        tags,
        summary: 'Revoke an API key; it fails on the very next request',
        operationId: 'deleteApiKey',
        params: Type.Object({ keyId: Id }),
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
