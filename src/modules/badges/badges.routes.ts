import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { requireActor, requireRole } from '../../core/auth/authenticate.js';
import { SECURED } from '../../core/http/openapi.js';
import { errors, ref } from '../../core/http/schemas.js';
import { typed } from '../../core/http/typed.js';
import {
  Badge,
  BadgeIdParams,
  BadgeList,
  BadgeListQuery,
  BadgeSlugParams,
  CreateBadgeBody,
  CreatedBadge,
  UpdateBadgeBody,
} from './badges.schemas.js';
import type { BadgesService } from './badges.service.js';

const tags = ['badges'];
const security = SECURED;

export async function badgesRoutes(
  fastify: FastifyInstance,
  { badges }: { badges: BadgesService },
): Promise<void> {
  const app = typed(fastify);

  app.get(
    '/badges',
    {
      schema: {
        tags,
        summary: 'List badges, by name',
        description: 'Every badge, sorted by name. Public.',
        operationId: 'listBadges',
        querystring: BadgeListQuery,
        response: { 200: BadgeList, ...errors(400) },
      },
    },
    async (request) => ({ badges: await badges.list(request.query.isActive) }),
  );

  // Static paths (/badges/slug/…, /badges/users/…, /badges/award) always win over /badges/:badgeId in the
  // router, whatever the registration order.
  app.get(
    '/badges/slug/:slug',
    {
      schema: {
        tags,
        summary: 'A badge by slug',
        description: 'A badge by its slug. Public.',
        operationId: 'getBadgeBySlug',
        params: BadgeSlugParams,
        response: { 200: ref(Badge), ...errors(400, 404) },
      },
    },
    async (request) => badges.getBySlug(request.params.slug),
  );

  app.get(
    '/badges/:badgeId',
    {
      schema: {
        tags,
        summary: 'A badge by id',
        description: 'A badge by its id. Public.',
        operationId: 'getBadge',
        params: BadgeIdParams,
        response: { 200: ref(Badge), ...errors(400, 404) },
      },
    },
    async (request) => badges.getById(request.params.badgeId),
  );

  app.post(
    '/badges',
    {
      preHandler: requireRole('ADMIN'),
      schema: {
        tags,
        summary: 'Create a badge (admin or super admin)',
        description: 'The slug is unique among badges (409 SLUG_TAKEN). isActive defaults to true.',
        operationId: 'createBadge',
        body: CreateBadgeBody,
        security,
        response: { 201: CreatedBadge, ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await badges.create(requireActor(request).userId, request.body)),
  );

  app.patch(
    '/badges/:badgeId',
    {
      preHandler: requireRole('ADMIN'),
      schema: {
        tags,
        summary: 'Edit a badge (admin or super admin): name, description, iconUrl, color, isActive',
        description:
          'null (or an empty string) clears description, iconUrl and color. The slug cannot change. ' +
          'Deactivating hides the badge from profiles and stops new awards; existing awards stay.',
        operationId: 'updateBadge',
        params: BadgeIdParams,
        body: UpdateBadgeBody,
        security,
        response: { 200: ref(Badge), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => badges.update(requireActor(request).userId, request.params.badgeId, request.body),
  );

  app.delete(
    '/badges/:badgeId',
    {
      preHandler: requireRole('ADMIN'),
      schema: {
        tags,
        summary: 'Delete a badge and take it away from every user (admin or super admin)',
        description:
          'Deletes a badge and takes it away from every user holding it. Admins and super admins only.',
        operationId: 'deleteBadge',
        params: BadgeIdParams,
        security,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await badges.remove(requireActor(request).userId, request.params.badgeId);
      return reply.status(204).send(null);
    },
  );
}
