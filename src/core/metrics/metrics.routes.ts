// GET /metrics: the Prometheus scrape. Off unless configured (METRICS=on or METRICS_TOKEN); with a token, only
// `Authorization: Bearer <token>` is let in, compared in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { unauthorized } from '../http/errors.js';
import { errors } from '../http/schemas.js';
import { typed } from '../http/typed.js';
import type { Metrics } from './metrics.js';

export const METRICS_PATH = '/metrics';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** Equal-length digests, so neither the comparison nor its early exit reveals how much of a guess matched. */
function bearerMatches(request: FastifyRequest, expected: Buffer): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return match !== null && timingSafeEqual(digest(match[1]!), expected);
}

/**
 * The scrape token is not an account credential: it is checked, then removed from the request, before account
 * authentication (which would refuse it as an unknown session token). Must be registered before
 * `authenticate` so that its onRequest hook runs first.
 */
export function registerMetricsToken(app: FastifyInstance, token: string | undefined): void {
  if (token === undefined) return;
  const expected = digest(token);
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.url !== METRICS_PATH) return;
    if (!bearerMatches(request, expected)) {
      reply.header('www-authenticate', 'Bearer realm="metrics"');
      throw unauthorized('Metrics need Authorization: Bearer <METRICS_TOKEN>');
    }
    delete request.headers.authorization;
  });
}

export async function metricsRoutes(
  fastify: FastifyInstance,
  { metrics }: { metrics: Metrics },
): Promise<void> {
  typed(fastify).get(
    METRICS_PATH,
    {
      schema: {
        tags: ['system'],
        summary: 'Prometheus metrics (only when enabled; Bearer METRICS_TOKEN when one is set)',
        description:
          'Prometheus text exposition format: request counts and latencies by route pattern and status, ' +
          'rate-limit rejections, database query timings and pool gauges, job runs, storage errors, ' +
          'event-loop lag and memory.',
        operationId: 'getMetrics',
        response: {
          200: {
            description: 'Prometheus text exposition format 0.0.4',
            content: { 'text/plain': { schema: Type.String() } },
          },
          ...errors(401, 429),
        },
      },
    },
    async (_request, reply) => {
      const body = await metrics.registry.metrics();
      return reply.type(metrics.registry.contentType).send(body);
    },
  );
}
