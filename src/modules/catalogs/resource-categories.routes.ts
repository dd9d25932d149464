import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { requireActor, requireRole } from '../../core/auth/authenticate.js';
import { SECURED } from '../../core/http/openapi.js';
import { errors, ref } from '../../core/http/schemas.js';
import { typed } from '../../core/http/typed.js';
import {
  CategoryIdParams,
  CategoryList,
  CategoryListQuery,
  CreateCategoryBody,
  ResourceCategory,
  UpdateCategoryBody,
} from './resource-categories.schemas.js';
import type { ResourceCategoriesService } from './resource-categories.service.js';

const tags = ['resources'];
const admins = requireRole('ADMIN');
const security = SECURED;

export async function resourceCategoriesRoutes(
  fastify: FastifyInstance,
  { categories }: { categories: ResourceCategoriesService },
): Promise<void> {
  const app = typed(fastify);

  app.get(
    '/resources/categories',
    {
      schema: {
        tags,
        summary: 'Resource categories, for one type or all, in display order',
        description: 'Resource categories in display order, for one resource type or all of them. Public.',
        operationId: 'listResourceCategories',
        querystring: CategoryListQuery,
        response: { 200: CategoryList, ...errors(400) },
      },
    },
    async (request) => ({ categories: await categories.list(request.query.type) }),
  );

  app.post(
    '/resources/categories',
    {
      preHandler: admins,
      schema: {
        tags,
        summary: 'Create a resource category for a type (admin)',
        description: 'The slug is unique within the resource type (409 SLUG_TAKEN).',
        operationId: 'createResourceCategory',
        body: CreateCategoryBody,
        security,
        response: { 201: ref(ResourceCategory), ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await categories.create(requireActor(request).userId, request.body)),
  );

  app.patch(
    '/resources/categories/:id',
    {
      preHandler: admins,
      schema: {
        tags,
        summary: 'Edit a resource category (admin); its type cannot change',
        description: 'Changes a resource category; its resource type cannot change. Admins only.',
        operationId: 'updateResourceCategory',
        params: CategoryIdParams,
        body: UpdateCategoryBody,
        security,
        response: { 200: ref(ResourceCategory), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => categories.update(requireActor(request).userId, request.params.id, request.body),
  );

  app.delete(
    '/resources/categories/:id',
    {
      preHandler: admins,
      schema: {
        tags,
        summary: 'Delete a resource category (admin); its resources leave it',
        description: 'Deletes a resource category; resources in it simply leave it. Admins only.',
        operationId: 'deleteResourceCategory',
        params: CategoryIdParams,
        security,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await categories.remove(requireActor(request).userId, request.params.id);
      return reply.status(204).send(null);
    },
  );
}
