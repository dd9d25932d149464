// Server keys (spec/extensions.md §3): create (shown once), list, delete; owner side only.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { requireActor, requireUser } from '../../../core/auth/authenticate.js';
import { SECURED } from '../../../core/http/openapi.js';
import { errors } from '../../../core/http/schemas.js';
import { typed } from '../../../core/http/typed.js';
import { ServerIdParams } from '../servers.schemas.js';
import { CreateServerKeyBody, CreatedServerKey, ServerKeyList, ServerKeyParams } from './keys.schemas.js';
import type { ServerKeysService } from './keys.service.js';
import { MAX_SERVER_KEYS } from './keys.service.js';

const tags = ['servers'];
const WHO =
  'For the owner side (the user owner or any member of the owning team); a server the caller cannot see is a ' +
  '404, one they see but do not manage a 403.';

export async function serverKeysRoutes(
  fastify: FastifyInstance,
  { keys }: { keys: ServerKeysService },
): Promise<void> {
  const app = typed(fastify);

  app.post(
    '/servers/:id/keys',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Create a server key for heartbeats; the key is shown once',
        description:
          `The key authenticates POST /servers/heartbeat (header x-server-key); only its digest is stored. At ` +
          `most ${MAX_SERVER_KEYS} keys per server (409 LIMIT_REACHED). Works for servers in any status, so ` +
          `owners can set heartbeats up before approval. ${WHO}`,
        operationId: 'createServerKey',
        params: ServerIdParams,
        body: CreateServerKeyBody,
        security: SECURED,
        response: { 201: CreatedServerKey, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await keys.create(requireActor(request), request.params.id, request.body)),
  );

  app.get(
    '/servers/:id/keys',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: "The server's keys (never the keys themselves)",
        description: `Oldest first. lastUsedAt moves at most once a minute. ${WHO}`,
        operationId: 'listServerKeys',
        params: ServerIdParams,
        security: SECURED,
        response: { 200: ServerKeyList, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => keys.list(requireActor(request), request.params.id),
  );

  app.delete(
    '/servers/:id/keys/:keyId',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Delete a server key; heartbeats with it fail (401) from the next request on',
        description: `A key of another server is a 404. ${WHO}`,
        operationId: 'deleteServerKey',
        params: ServerKeyParams,
        security: SECURED,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await keys.remove(requireActor(request), request.params.id, request.params.keyId);
      return reply.status(204).send(null);
    },
  );
}
