import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { SECURED } from '../../../core/http/openapi.js';
import { StringEnum, Timestamp, errors } from '../../../core/http/schemas.js';
import { typed } from '../../../core/http/typed.js';
import { ServerIdParams } from '../servers.schemas.js';
import { STATS_RANGES } from './history.service.js';
import type { ServerHistoryService } from './history.service.js';

const StatsQuery = Type.Object({
  range: Type.Optional(
    StringEnum(STATS_RANGES, { description: '24h (default; raw samples), 7d, 30d or 90d (hourly rollups)' }),
  ),
});

const StatsPoint = Type.Object({
  at: Timestamp,
  onlinePlayers: Type.Integer({
    description: "The bucket's average, rounded; minutes without a sample count 0",
  }),
  maxPlayers: Type.Integer({ description: 'Highest capacity reported in the bucket' }),
  online: Type.Boolean({ description: 'Online for at least half of the bucket' }),
});

const ServerStats = Type.Object({
  range: StringEnum(STATS_RANGES),
  from: Type.String({ format: 'date-time', description: 'Start of the range (inclusive)' }),
  to: Type.String({
    format: 'date-time',
    description: 'End of the range (exclusive): the current minute or hour',
  }),
  bucketMinutes: Type.Integer({ description: 'Width of a point: 5 for 24h, 60 for the longer ranges' }),
  points: Type.Array(StatsPoint, {
    description: 'Oldest first, only buckets with data: a missing bucket means the server was not reporting',
  }),
  uptime: Type.Number({
    minimum: 0,
    maximum: 1,
    description: 'Online minutes / counted minutes, 4 decimals',
  }),
  peakPlayers: Type.Integer(),
  averagePlayers: Type.Number({ description: 'Sum of sampled onlinePlayers / counted minutes, 2 decimals' }),
});

const DESCRIPTION =
  'Public for an APPROVED server; otherwise only its owner side and moderators see it (404 for anyone else). ' +
  'A reporting server (last heartbeat or status report younger than 3 minutes) is sampled once a minute; ' +
  'samples are kept 48 h and rolled up per hour (kept 400 days). range=24h reads the samples of the last 1,440 ' +
  'whole minutes in 5-minute points; 7d, 30d and 90d read the hourly rollups of the last whole hours, one point ' +
  'an hour (an hour appears within 5 minutes of its end). The counted minutes run from the later of the range ' +
  'start and the server creation to the range end; a minute without a sample counts as offline with 0 players. ' +
  'uptime = online minutes / counted minutes; averagePlayers = sum of onlinePlayers / counted minutes; ' +
  'peakPlayers = highest onlinePlayers sampled. Any other range is a 400. `Cache-Control: public, max-age=60` ' +
  'for APPROVED servers, `private, no-cache` otherwise.';

export async function serverHistoryRoutes(
  fastify: FastifyInstance,
  { history }: { history: ServerHistoryService },
): Promise<void> {
  const app = typed(fastify);

  app.get(
    '/servers/:id/stats',
    {
      schema: {
        tags: ['servers'],
        summary: "A server's player counts and uptime over 24 hours, 7, 30 or 90 days",
        description: DESCRIPTION,
        operationId: 'getServerStats',
        params: ServerIdParams,
        querystring: StatsQuery,
        security: SECURED,
        response: { 200: ServerStats, ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { stats, isPublic } = await history.stats(
        request.actor,
        request.params.id,
        request.query.range ?? '24h',
      );
      reply.header('cache-control', isPublic ? 'public, max-age=60' : 'private, no-cache');
      return stats;
    },
  );
}
