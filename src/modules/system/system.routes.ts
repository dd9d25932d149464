import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { typed } from '../../core/http/typed.js';
import type { AppContext } from '../../app.js';

const Health = Type.Object({ status: Type.Literal('ok') });
const ProbeStatus = Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('down')]);
const Ready = Type.Object({
  status: Type.Union(
    [
      Type.Literal('ok'),
      Type.Literal('degraded'),
      Type.Literal('unavailable'),
      Type.Literal('shutting_down'),
    ],
    {
      description:
        'ok: every dependency answers. degraded: a non-critical one (e.g. redis) does not; still serving (200). ' +
        'unavailable: a critical one (database, migrations, storage) is down (503). shutting_down: the process ' +
        'is draining after SIGTERM (503, checks empty).',
    },
  ),
  checks: Type.Record(Type.String(), ProbeStatus, {
    description:
      'Each dependency by name: database (answers a query), migrations (the newest migration is applied), ' +
      'storage, and redis when REDIS_URL is set.',
  }),
});

export async function systemRoutes(fastify: FastifyInstance, { readiness }: AppContext): Promise<void> {
  const app = typed(fastify);
  app.get(
    '/health',
    {
      schema: {
        tags: ['system'],
        summary: 'Liveness: the process answers',
        description:
          'Answers 200 as long as the process serves requests, without touching any dependency. Public ' +
          'and not rate limited: meant for a liveness probe.',
        operationId: 'getHealth',
        response: { 200: Health },
      },
      config: { rateLimit: false },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/ready',
    {
      schema: {
        tags: ['system'],
        summary:
          'Readiness: 200 when every critical dependency answers, 503 when one is down or the process is stopping',
        description:
          'Checks every registered dependency (database, storage, optional ones such as Redis) and ' +
          'answers 503 when a critical one is down or the process is shutting down. Public and not rate ' +
          "limited: meant for a load balancer's readiness probe.",
        operationId: 'getReadiness',
        response: { 200: Ready, 503: Ready },
      },
      config: { rateLimit: false },
    },
    async (_request, reply) => {
      const report = await readiness.check();
      const ready = report.status === 'ok' || report.status === 'degraded';
      // Never cached: a stale 200 from a proxy would keep traffic on a process that is going away.
      return reply
        .header('cache-control', 'no-store')
        .status(ready ? 200 : 503)
        .send(report);
    },
  );

  app.get(
    '/openapi.json',
    {
      schema: {
        tags: ['system'],
        summary: 'This OpenAPI document',
        description:
          'The OpenAPI 3.1 description of every public operation of this API, generated from the route ' +
          'schemas; the interactive view is at /docs. Public.',
        operationId: 'getOpenApiDocument',
        response: { 200: Type.Object({}, { additionalProperties: true }) },
      },
    },
    async () => app.swagger(),
  );
}
