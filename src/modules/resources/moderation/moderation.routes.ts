import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { requireActor, requireRole } from '../../../core/auth/authenticate.js';
import { SECURED } from '../../../core/http/openapi.js';
import {
  Id,
  Nullable,
  PageQuery,
  StringEnum,
  Timestamp,
  errors,
  named,
  ref,
} from '../../../core/http/schemas.js';
import { typed } from '../../../core/http/typed.js';
import type { ResourceListsService } from '../resource-lists.service.js';
import {
  RESOURCE_STATUSES,
  Resource,
  ResourceIdParams,
  ResourceList,
  ResourceStatusName,
} from '../resources.schemas.js';
import type { ModerationService } from './moderation.service.js';
import { MODERATION_ACTIONS } from './moderation.states.js';

const tags = ['resources'];
const security = SECURED;
const moderators = requireRole('MODERATOR');

const ModerateBody = Type.Object(
  {
    action: StringEnum(MODERATION_ACTIONS, {
      description:
        'APPROVE: PENDING or REJECTED → APPROVED. REJECT: PENDING or APPROVED → REJECTED. SUSPEND: PENDING or ' +
        'APPROVED → SUSPENDED. UNSUSPEND: SUSPENDED → APPROVED.',
    }),
    reason: Type.Optional(Type.String({ maxLength: 2000, description: 'Note kept in the history' })),
  },
  { additionalProperties: false },
);

export const ModerationEvent = named(
  'ResourceModerationEvent',
  Type.Object({
    id: Id,
    action: StringEnum([...MODERATION_ACTIONS, 'RESUBMIT'] as const, {
      description:
        'A moderator action, or RESUBMIT: an owner-side edit sent a REJECTED resource back to PENDING',
    }),
    fromStatus: ResourceStatusName,
    toStatus: ResourceStatusName,
    reason: Nullable(Type.String()),
    moderator: Nullable(
      Type.Object(
        { id: Id, username: Type.String() },
        { description: 'null for RESUBMIT, and once the account is gone' },
      ),
    ),
    createdAt: Timestamp,
  }),
);

export async function resourceModerationRoutes(
  fastify: FastifyInstance,
  { moderation, lists }: { moderation: ModerationService; lists: ResourceListsService },
): Promise<void> {
  const app = typed(fastify);

  app.get(
    '/resources/moderation/pending',
    {
      preHandler: moderators,
      schema: {
        tags,
        summary: 'The moderation queue: PENDING resources, oldest first (moderator, admin)',
        description:
          'The moderation queue: resources waiting for review (PENDING), oldest first. Moderators and ' +
          'admins only.',
        operationId: 'listPendingResources',
        querystring: PageQuery,
        security,
        response: { 200: ResourceList, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const { page = 1, limit = 20 } = request.query;
      return lists.listByStatus('PENDING', { page, limit });
    },
  );

  app.get(
    '/resources/moderation/status/:status',
    {
      preHandler: moderators,
      schema: {
        tags,
        summary:
          'Resources in one moderation status (moderator, admin); PENDING oldest first, others newest first',
        description:
          'Resources in one moderation status: PENDING oldest first, the other statuses newest first. ' +
          'Moderators and admins only.',
        operationId: 'listResourcesByStatus',
        params: Type.Object({ status: StringEnum(RESOURCE_STATUSES) }),
        querystring: PageQuery,
        security,
        response: { 200: ResourceList, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const { page = 1, limit = 20 } = request.query;
      return lists.listByStatus(request.params.status, { page, limit });
    },
  );

  app.patch(
    '/resources/moderation/:id/moderate',
    {
      preHandler: moderators,
      schema: {
        tags,
        summary: 'Approve, reject, suspend or unsuspend a resource (moderator, admin)',
        description:
          'Any action outside the transition table is 409 INVALID_STATUS_TRANSITION. Every action is recorded ' +
          'in the history. Returns the resource.',
        operationId: 'moderateResource',
        params: ResourceIdParams,
        body: ModerateBody,
        security,
        response: { 200: ref(Resource), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      moderation.moderate(requireActor(request), request.params.id, request.body.action, request.body.reason),
  );

  app.get(
    '/resources/moderation/:id/history',
    {
      preHandler: moderators,
      schema: {
        tags,
        summary: 'The moderation history of a resource, oldest first (moderator, admin)',
        description:
          'Every moderation decision on a resource, oldest first, with who made it and why. Moderators ' +
          'and admins only.',
        operationId: 'getResourceModerationHistory',
        params: ResourceIdParams,
        security,
        response: {
          200: Type.Object({ history: Type.Array(ref(ModerationEvent)) }),
          ...errors(400, 401, 403, 404),
        },
      },
    },
    async (request) => ({ history: await moderation.history(request.params.id) }),
  );
}
