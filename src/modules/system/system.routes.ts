import { sql } from 'kysely';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { typed } from '../../core/http/typed.js';
import type { AppContext } from '../../app.js';

const Health = Type.Object({ status: Type.Literal('ok') });
const Ready = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  checks: Type.Object({ database: Type.Boolean(), storage: Type.Boolean() }),
});

async function succeeds(check: () => Promise<unknown>): Promise<boolean> {
  try {
    await check();
    return true;
  } catch {
    return false;
  }
}

export async function systemRoutes(
  fastify: FastifyInstance,
  { database, storage }: AppContext,
): Promise<void> {
  const app = typed(fastify);
  app.get(
    '/health',
    {
      schema: {
        tags: ['system'],
        summary: 'Liveness: the process answers',
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
        summary: 'Readiness: database and storage reachable (503 otherwise)',
        operationId: 'getReadiness',
        response: { 200: Ready, 503: Ready },
      },
      config: { rateLimit: false },
    },
    async (_request, reply) => {
      const [databaseOk, storageOk] = await Promise.all([
        succeeds(() => sql`select 1`.execute(database.db)),
        succeeds(() => storage.ping()),
      ]);
      const ok = databaseOk && storageOk;
      return reply
        .status(ok ? 200 : 503)
        .send({ status: ok ? 'ok' : 'unavailable', checks: { database: databaseOk, storage: storageOk } });
    },
  );

  app.get(
    '/openapi.json',
    {
      schema: {
        tags: ['system'],
        summary: 'This OpenAPI document',
        operationId: 'getOpenApiDocument',
        response: { 200: Type.Object({}, { additionalProperties: true }) },
      },
    },
    async () => app.swagger(),
  );
}
