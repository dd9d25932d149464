import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { requireActor, requireUser } from '../../../core/auth/authenticate.js';
import { SECURED } from '../../../core/http/openapi.js';
import { Id, Nullable, Timestamp, errors } from '../../../core/http/schemas.js';
import { typed } from '../../../core/http/typed.js';
import { MAX_PLAYERS, ServerIdParams } from '../servers.schemas.js';
import type { ServerStatusService } from './status.service.js';

const ReportStatusBody = Type.Object(
  {
    online: Type.Boolean(),
    onlinePlayers: Type.Integer({ minimum: 0, maximum: MAX_PLAYERS, description: 'At most maxPlayers' }),
    maxPlayers: Type.Integer({ minimum: 0, maximum: MAX_PLAYERS }),
  },
  { additionalProperties: false },
);

const ServerStatusReport = Type.Object({
  id: Id,
  online: Type.Boolean(),
  onlinePlayers: Type.Integer({ description: '0 when offline' }),
  maxPlayers: Type.Integer(),
  lastReportedAt: Nullable(Timestamp),
});

export async function serverStatusRoutes(
  fastify: FastifyInstance,
  { status }: { status: ServerStatusService },
): Promise<void> {
  const app = typed(fastify);

  app.post(
    '/servers/:id/status',
    {
      preHandler: requireUser,
      schema: {
        tags: ['servers'],
        summary: 'Report whether the server is online and its player counts (owner side or team member)',
        description:
          'onlinePlayers above maxPlayers is a 400; when online is false, onlinePlayers is recorded as 0. ' +
          'The rank follows at the next recomputation (every minute). A server is online while its last ' +
          'report (this one or a heartbeat, POST /servers/heartbeat) is younger than 3 minutes; after that it ' +
          'is shown offline with 0 players. Each crossing between online and offline records ' +
          'server.went_online (data: onlinePlayers, maxPlayers, cause REPORTED or HEARTBEAT) or server.went_offline (data: cause REPORTED, ' +
          'or SILENT when the 3 minutes ran out, dated at that boundary).',
        operationId: 'reportServerStatus',
        params: ServerIdParams,
        body: ReportStatusBody,
        security: SECURED,
        response: { 200: ServerStatusReport, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => status.report(requireActor(request), request.params.id, request.body),
  );
}
