import type { FastifyInstance } from 'fastify';
import { OPTIONAL_AUTH } from '../../../core/http/openapi.js';
import { errors } from '../../../core/http/schemas.js';
import { typed } from '../../../core/http/typed.js';
import { ServerIdParams } from '../servers.schemas.js';
import { rankExplanation } from './rank.formula.js';
import type { RankWeights } from './rank.formula.js';
import { ServerRank } from './rank.schemas.js';
import type { ServerRankService } from './rank.service.js';

export async function serverRankRoutes(
  fastify: FastifyInstance,
  { rank, weights }: { rank: ServerRankService; weights: RankWeights },
): Promise<void> {
  const app = typed(fastify);

  app.get(
    '/servers/:id/rank',
    {
      schema: {
        tags: ['servers'],
        summary: 'Why a server has its rank: the score, its parts, the weights and the formula',
        description:
          `${rankExplanation(weights)} Public for APPROVED servers. The owner side and moderators also see ` +
          'a server that is not APPROVED: its score as computed, with rank null; for anyone else it is a 404. ' +
          'daysListed is counted to computedAt, so weights × components add up to score.',
        operationId: 'getServerRank',
        params: ServerIdParams,
        security: OPTIONAL_AUTH,
        response: { 200: ServerRank, ...errors(400, 404) },
      },
    },
    async (request) => rank.explain(request.actor, request.params.id),
  );
}
