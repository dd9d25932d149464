import type { FastifyInstance } from 'fastify';
import { requireActor, requireRole } from '../../../core/auth/authenticate.js';
import { SECURED } from '../../../core/http/openapi.js';
import { Message, errors, ref } from '../../../core/http/schemas.js';
import { typed } from '../../../core/http/typed.js';
import {
  AwardBadgeBody,
  AwardResult,
  BadgeHolderParams,
  BadgeUserParams,
  UserBadgeList,
} from './awards.schemas.js';
import type { BadgeAwardsService } from './awards.service.js';

const tags = ['badges'];
const security = SECURED;

export async function badgeAwardsRoutes(
  fastify: FastifyInstance,
  { awards }: { awards: BadgeAwardsService },
): Promise<void> {
  const app = typed(fastify);

  app.get(
    '/badges/users/:userId',
    {
      schema: {
        tags,
        summary: "A user's badges, with who awarded them, when and why",
        description: 'Active badges only, newest award first. Unknown or banned user: 404.',
        operationId: 'listUserBadges',
        params: BadgeUserParams,
        response: { 200: UserBadgeList, ...errors(400, 404) },
      },
    },
    async (request) => ({ badges: await awards.listForUser(request.params.userId) }),
  );

  app.post(
    '/badges/award',
    {
      preHandler: requireRole('MODERATOR'),
      schema: {
        tags,
        summary: 'Award a badge to a user (moderator, admin or super admin)',
        description:
          'Unknown badge, or unknown or banned user: 404. The user already has it: 409 ' +
          'BADGE_ALREADY_AWARDED. Inactive badge: 409 BADGE_INACTIVE.',
        operationId: 'awardBadge',
        body: AwardBadgeBody,
        security,
        response: { 201: AwardResult, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => reply.status(201).send(await awards.award(requireActor(request), request.body)),
  );

  app.delete(
    '/badges/:badgeId/users/:userId',
    {
      preHandler: requireRole('MODERATOR'),
      schema: {
        tags,
        summary: 'Take a badge away from a user (moderator, admin or super admin)',
        description: 'The user does not have the badge (or either does not exist): 404.',
        operationId: 'revokeBadge',
        params: BadgeHolderParams,
        security,
        response: { 200: ref(Message), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { badgeId, userId } = request.params;
      await awards.revoke(requireActor(request), badgeId, userId);
      return { message: 'Badge revoked' };
    },
  );
}
