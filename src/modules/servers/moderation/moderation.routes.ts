// Server moderation, platform MODERATOR or higher: approve, reject, suspend, and (extensions) the history of a
// server and the servers in one status, so moderators can find the pending ones.
import type { FastifyInstance } from 'fastify';
import { requireActor, requireRole } from '../../../core/auth/authenticate.js';
import { SECURED } from '../../../core/http/openapi.js';
import { errors, ref } from '../../../core/http/schemas.js';
import { typed } from '../../../core/http/typed.js';
import { Server, ServerIdParams } from '../servers.schemas.js';
import {
  ApproveServerBody,
  ModerationQueue,
  ModerationQueueQuery,
  ModerationStatusParams,
  RejectOrSuspendServerBody,
  ServerModerationHistory,
} from './moderation.schemas.js';
import type { ServerModerationService } from './moderation.service.js';

const tags = ['servers'];
const moderatorOnly = { preHandler: requireRole('MODERATOR') };

export async function serverModerationRoutes(
  fastify: FastifyInstance,
  { moderation }: { moderation: ServerModerationService },
): Promise<void> {
  const app = typed(fastify);

  app.post(
    '/servers/moderation/:id/approve',
    {
      ...moderatorOnly,
      // The body is optional: a bodiless approval validates as {}.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags,
        summary: 'Approve a PENDING, REJECTED or SUSPENDED server (moderator or admin)',
        description:
          'The server becomes public and is ranked at once by its score as last computed (the first ' +
          'approval is its listing time); the minute job refreshes the score and the ranks. ' +
          'Any other status is 409 INVALID_STATUS_TRANSITION. The body and its notes are optional.',
        operationId: 'approveServer',
        params: ServerIdParams,
        body: ApproveServerBody,
        security: SECURED,
        response: { 200: ref(Server), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => moderation.moderate(requireActor(request), request.params.id, 'APPROVE', request.body),
  );

  app.post(
    '/servers/moderation/:id/reject',
    {
      ...moderatorOnly,
      schema: {
        tags,
        summary: 'Reject a PENDING or APPROVED server with a reason (moderator or admin)',
        description:
          'An owner-side edit of a rejected server sends it back to PENDING. Any other status is 409 ' +
          'INVALID_STATUS_TRANSITION.',
        operationId: 'rejectServer',
        params: ServerIdParams,
        body: RejectOrSuspendServerBody,
        security: SECURED,
        response: { 200: ref(Server), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => moderation.moderate(requireActor(request), request.params.id, 'REJECT', request.body),
  );

  app.post(
    '/servers/moderation/:id/suspend',
    {
      ...moderatorOnly,
      schema: {
        tags,
        summary: 'Suspend a PENDING or APPROVED server with a reason (moderator or admin)',
        description: 'Approving lifts the suspension. Any other status is 409 INVALID_STATUS_TRANSITION.',
        operationId: 'suspendServer',
        params: ServerIdParams,
        body: RejectOrSuspendServerBody,
        security: SECURED,
        response: { 200: ref(Server), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => moderation.moderate(requireActor(request), request.params.id, 'SUSPEND', request.body),
  );

  app.get(
    '/servers/moderation/:id/history',
    {
      ...moderatorOnly,
      schema: {
        tags,
        summary: 'The moderation history of a server, oldest first (moderator or admin)',
        description:
          'Every moderation decision on a server, oldest first, with who made it and why. Moderators and ' +
          'admins only.',
        operationId: 'getServerModerationHistory',
        params: ServerIdParams,
        security: SECURED,
        response: { 200: ServerModerationHistory, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => ({ history: await moderation.history(request.params.id) }),
  );

  app.get(
    '/servers/moderation/status/:status',
    {
      ...moderatorOnly,
      schema: {
        tags,
        summary: 'Servers in one moderation status, longest-waiting first (moderator or admin)',
        description: 'Servers in one moderation status, longest-waiting first. Moderators and admins only.',
        operationId: 'listServersByModerationStatus',
        params: ModerationStatusParams,
        querystring: ModerationQueueQuery,
        security: SECURED,
        response: { 200: ModerationQueue, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const { limit = 20, offset = 0 } = request.query;
      const { servers, total } = await moderation.listInStatus(request.params.status, limit, offset);
      return { servers, total, meta: { total, limit, offset } };
    },
  );
}
