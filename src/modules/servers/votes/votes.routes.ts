// Votes and Votifier settings of a server (spec/extensions.md §3).
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { requireActor, requireUser } from '../../../core/auth/authenticate.js';
import { SECURED } from '../../../core/http/openapi.js';
import { errors, ref } from '../../../core/http/schemas.js';
import { typed } from '../../../core/http/typed.js';
import { ServerIdParams } from '../servers.schemas.js';
import {
  VOTE_COOLDOWN_HOURS,
  VoteBody,
  VoteList,
  VoteListQuery,
  VoteResult,
  Votifier,
  VotifierBody,
} from './votes.schemas.js';
import type { VotesService } from './votes.service.js';
import type { VotifierService } from './votifier.service.js';

const tags = ['servers'];
const security = SECURED;
const OWNER_SIDE =
  'Owner side only: the user owner or any member of the owning team (403 for others who can see the server, ' +
  '404 for those who cannot).';

export async function votesRoutes(
  fastify: FastifyInstance,
  { votes, votifier }: { votes: VotesService; votifier: VotifierService },
): Promise<void> {
  const app = typed(fastify);

  app.post(
    '/servers/:id/votes',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Vote for a server',
        description:
          `One vote per account per server per ${VOTE_COOLDOWN_HOURS} hours, and one per client address per ` +
          `server per ${VOTE_COOLDOWN_HOURS} hours (IPv4: the address; IPv6: its /64 prefix); otherwise 409 ` +
          'VOTE_COOLDOWN with details.nextVoteAt. Only APPROVED servers accept votes: a server you cannot see ' +
          'is 404, one you see that is not APPROVED (your own pending server) is 409 SERVER_NOT_APPROVED. ' +
          'voteCount counts this calendar month (UTC) and restarts on the 1st; totalVotes never restarts. ' +
          'The vote records a server.voted event without the voter (actor null, data {voteCount, ' +
          'totalVotes}); nobody but the server owner side sees who voted (GET /servers/:id/votes). With an ' +
          'enabled Votifier the vote is delivered to the game server within seconds (NuVotifier v2).',
        operationId: 'voteForServer',
        params: ServerIdParams,
        body: VoteBody,
        security,
        response: { 201: ref(VoteResult), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await votes.vote(requireActor(request), request.params.id, request.body.username, request.ip)),
  );

  app.get(
    '/servers/:id/votes',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: "A server's votes with their voters and Votifier deliveries, newest first",
        description:
          `${OWNER_SIDE} delivery is null for votes cast while the server had no enabled Votifier; ` +
          'otherwise {status: PENDING | SUCCEEDED | FAILED, attempts, lastError}. Failed attempts are retried ' +
          'about 30 s, 2 min, 10 min, 1 h, 6 h and 24 h apart (as webhooks), then FAILED.',
        operationId: 'listServerVotes',
        params: ServerIdParams,
        querystring: VoteListQuery,
        security,
        response: { 200: VoteList, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { limit = 20, offset = 0 } = request.query;
      const page = await votes.list(requireActor(request), request.params.id, limit, offset);
      return { ...page, meta: { total: page.total, limit, offset } };
    },
  );

  app.put(
    '/servers/:id/votifier',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: "Set the server's Votifier (NuVotifier protocol v2): votes are delivered to it",
        description:
          `${OWNER_SIDE} Creates or replaces the settings. host is a hostname or an IP address; it must not ` +
          'resolve to a loopback, private, link-local, CGNAT, multicast or otherwise reserved address (400 ' +
          'OUTBOUND_TARGET_REFUSED; checked again at each delivery). The token is the one the NuVotifier ' +
          'listener holds for this service; it is stored encrypted, never returned, and may be omitted to keep ' +
          'the stored one. enabled: false keeps the settings but stops deliveries (votes due meanwhile are ' +
          'FAILED). Only votes cast while a Votifier is enabled are delivered.',
        operationId: 'putServerVotifier',
        params: ServerIdParams,
        body: VotifierBody,
        security,
        response: { 200: ref(Votifier), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => votifier.put(requireActor(request), request.params.id, request.body),
  );

  app.get(
    '/servers/:id/votifier',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: "The server's Votifier settings (without the token)",
        description: `${OWNER_SIDE} 404 when the server has no Votifier.`,
        operationId: 'getServerVotifier',
        params: ServerIdParams,
        security,
        response: { 200: ref(Votifier), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => votifier.get(requireActor(request), request.params.id),
  );

  app.delete(
    '/servers/:id/votifier',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: "Remove the server's Votifier",
        description: `${OWNER_SIDE} Votes still waiting for delivery are FAILED. 404 when there is none.`,
        operationId: 'deleteServerVotifier',
        params: ServerIdParams,
        security,
        response: { 204: Type.Null({ description: 'Removed' }), ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await votifier.remove(requireActor(request), request.params.id);
      return reply.status(204).send(null);
    },
  );
}
