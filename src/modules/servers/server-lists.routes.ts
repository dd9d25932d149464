// The server lists: the public directory, and the servers of one owner (a user, yourself, a team).
import type { FastifyInstance } from 'fastify';
import { requireActor, requireUser } from '../../core/auth/authenticate.js';
import { SECURED } from '../../core/http/openapi.js';
import { errors } from '../../core/http/schemas.js';
import { typed } from '../../core/http/typed.js';
import type { ServerListsService } from './server-lists.service.js';
import { directoryKey } from '../../core/http/page-cache.js';
import { renderWith, sendRendered } from '../../core/http/rendered.js';
import type { DirectoryCache } from '../../core/http/page-cache.js';
import {
  ServerIdParams,
  ServerList,
  ServerListQuery,
  ServerSummaryList,
  UserIdParams,
} from './servers.schemas.js';

const tags = ['servers'];

export async function serverListsRoutes(
  fastify: FastifyInstance,
  { lists, directory }: { lists: ServerListsService; directory: DirectoryCache },
): Promise<void> {
  const app = typed(fastify);

  app.get(
    '/servers',
    {
      schema: {
        tags,
        summary: 'The server directory: APPROVED servers, filtered and sorted (rank by default)',
        description:
          'search is a full-text search (see the parameter); categories and tags each keep servers that have ' +
          'at least one of the given ids (both lists must match when both are given); facets=tags,categories ' +
          'adds meta.facets. `total`: without filters the number of APPROVED servers from a maintained ' +
          'counter, with one tag or category alone its usage counter, otherwise the matches counted through the ' +
          'indexes up to 10,000 (`meta.totalExact`), never a count of the whole table. Pages are ' +
          'cached for up to 5 seconds: moderation, edits and rank changes show at once, live player counts ' +
          'and owner names within those 5 seconds.',
        operationId: 'listServers',
        querystring: ServerListQuery,
        response: { 200: ServerList, ...errors(400) },
      },
    },
    async (request, reply) => {
      const { limit = 20, offset = 0, ...filter } = request.query;
      const query = { ...filter, limit, offset };
      const page = await directory.page(directoryKey(query), async () => {
        const { servers, total, totalExact, facets, facetsExact } = await lists.list(query);
        const meta = {
          total,
          limit,
          offset,
          totalExact,
          ...(facets !== undefined ? { facets, facetsExact } : {}),
        };
        return renderWith(reply, { servers, total, meta });
      });
      return sendRendered(reply, page);
    },
  );

  app.get(
    '/servers/user/:userId',
    {
      schema: {
        tags,
        summary: "A user's own servers, newest first",
        description:
          'APPROVED ones only, except for the user themselves and moderators, who see every status. Team ' +
          'servers are listed under GET /teams/:id/servers.',
        operationId: 'listUserServers',
        params: UserIdParams,
        security: SECURED,
        response: { 200: ServerSummaryList, ...errors(400, 401, 404) },
      },
    },
    async (request) => ({ servers: await lists.ofUser(request.actor, request.params.userId) }),
  );

  app.get(
    '/users/me/servers',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Your own servers in every moderation status, newest first',
        description: 'Servers owned by your teams are listed under GET /teams/:id/servers.',
        operationId: 'listMyServers',
        security: SECURED,
        response: { 200: ServerSummaryList, ...errors(401) },
      },
    },
    async (request) => ({ servers: await lists.mine(requireActor(request)) }),
  );

  app.get(
    '/teams/:id/servers',
    {
      schema: {
        tags,
        summary: "A team's servers, newest first",
        description: 'APPROVED ones only, except for team members and moderators, who see every status.',
        operationId: 'listTeamServers',
        params: ServerIdParams,
        security: SECURED,
        response: { 200: ServerSummaryList, ...errors(400, 401, 404) },
      },
    },
    async (request) => ({ servers: await lists.ofTeam(request.actor, request.params.id) }),
  );
}
