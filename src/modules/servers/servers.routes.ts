// Servers: read, create, edit, transfer and delete (DESIGN §8 "Servers").
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { requireActor, requireUser } from '../../core/auth/authenticate.js';
import type { ObjectCache } from '../../core/http/object-cache.js';
import { SECURED } from '../../core/http/openapi.js';
import { errors, ref } from '../../core/http/schemas.js';
import { typed } from '../../core/http/typed.js';
import {
  CreateServerBody,
  Server,
  ServerIdParams,
  ServerSlugParams,
  TransferServerBody,
  TransferServerResponse,
  UpdateServerBody,
} from './servers.schemas.js';
import type { ServersService } from './servers.service.js';
import type { ServerTransfer } from './transfer-server-ownership.js';

const tags = ['servers'];
const security = SECURED;

export async function serversRoutes(
  fastify: FastifyInstance,
  deps: { servers: ServersService; transfer: ServerTransfer; objects: ObjectCache },
): Promise<void> {
  const app = typed(fastify);
  const { servers, transfer, objects } = deps;

  app.get(
    '/servers/slug/:slug',
    {
      schema: {
        tags,
        summary: 'A server by slug',
        description:
          'A server that is not APPROVED is visible only to its owner side (user owner, team members) and ' +
          'moderators; to anyone else it is 404.',
        operationId: 'getServerBySlug',
        params: ServerSlugParams,
        security,
        response: { 200: ref(Server), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { slug } = request.params;
      // Anonymous callers all see the same (APPROVED) server: kept until the database changes.
      if (request.actor !== null) return servers.getVisible(request.actor, { slug });
      return objects.send(reply, `server-by-slug:${slug}`, () => servers.getVisible(null, { slug }));
    },
  );

  app.get(
    '/servers/:id',
    {
      schema: {
        tags,
        summary: 'A server by id (same visibility as by slug)',
        description:
          'A server by id, with the same visibility rules as the lookup by slug: a server the caller may ' +
          'not see is 404.',
        operationId: 'getServer',
        params: ServerIdParams,
        security,
        response: { 200: ref(Server), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      if (request.actor !== null) return servers.getVisible(request.actor, { id });
      return objects.send(reply, `server:${id}`, () => servers.getVisible(null, { id }));
    },
  );

  app.post(
    '/servers',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'List a new server; it is PENDING until a moderator approves it',
        description:
          'Owned by you (default) or by a team in which you are OWNER or ADMIN (ownerType TEAM, ownerId the ' +
          'team id). ip is an IPv4/IPv6 address or hostname; port defaults to 5520. The slug is unique ' +
          '(409 SLUG_TAKEN); unknown category or tag ids are a 400.',
        operationId: 'createServer',
        body: CreateServerBody,
        security,
        response: { 201: ref(Server), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await servers.create(requireActor(request), request.body)),
  );

  app.patch(
    '/servers/:id',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Edit a server (owner or team member)',
        description:
          'categoryIds and tagIds replace the current lists. Editing a REJECTED server sends it back to ' +
          'PENDING for review. Null or empty shortDescription/description clears it. A body whose values ' +
          'all equal the stored ones changes nothing (no new updatedAt, no resubmission, no server.updated ' +
          'event).',
        operationId: 'updateServer',
        params: ServerIdParams,
        body: UpdateServerBody,
        security,
        response: { 200: ref(Server), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => servers.update(requireActor(request), request.params.id, request.body),
  );

  app.post(
    '/servers/:id/transfer-ownership',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Give the server to a user or a team (current owner: the user owner or the team OWNER)',
        description:
          'To a USER: any existing account that is not banned (404 otherwise). To a TEAM: one in which you ' +
          'are OWNER or ADMIN (403 otherwise). Giving it to its current owner is 409 ALREADY_OWNER.',
        operationId: 'transferServerOwnership',
        params: ServerIdParams,
        body: TransferServerBody,
        security,
        response: { 200: TransferServerResponse, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => transfer.transfer(requireActor(request), request.params.id, request.body),
  );

  app.delete(
    '/servers/:id',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: "Delete a server (the user owner, or the owning team's OWNER or ADMIN)",
        description: 'Removes its social links, description images, logo, banner and moderation history.',
        operationId: 'deleteServer',
        params: ServerIdParams,
        security,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await servers.remove(requireActor(request), request.params.id);
      return reply.status(204).send(null);
    },
  );
}
