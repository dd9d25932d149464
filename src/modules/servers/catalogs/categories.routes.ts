// /server-categories: public reads (the interface), admin writes (an extension, DESIGN §8 "Tags, categories").
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { requireActor, requireRole } from '../../../core/auth/authenticate.js';
import { SECURED } from '../../../core/http/openapi.js';
import { errors, ref } from '../../../core/http/schemas.js';
import { typed } from '../../../core/http/typed.js';
import {
  CatalogKeyParams,
  CatalogSlugParams,
  CategoryList,
  CreateServerCategoryBody,
  ServerCategory,
  UpdateServerCategoryBody,
} from './catalogs.schemas.js';
import type { ServerCatalogsService } from './catalogs.service.js';

const tags = ['server-catalogs'];
const adminOnly = { preHandler: requireRole('ADMIN') };

export async function serverCategoriesRoutes(
  fastify: FastifyInstance,
  { catalogs }: { catalogs: ServerCatalogsService },
): Promise<void> {
  const app = typed(fastify);

  app.get(
    '/server-categories',
    {
      schema: {
        tags,
        summary: 'All server categories, by order then name',
        description: 'Every server category, by display order then name. Public.',
        operationId: 'listServerCategories',
        response: { 200: CategoryList },
      },
    },
    async () => ({ categories: await catalogs.listCategories() }),
  );

  app.get(
    '/server-categories/:slug',
    {
      schema: {
        tags,
        summary: 'A server category by slug',
        description: 'A server category by its slug. Public.',
        operationId: 'getServerCategory',
        params: CatalogSlugParams,
        response: { 200: ref(ServerCategory), ...errors(400, 404) },
      },
    },
    async (request) => catalogs.getCategory(request.params.slug),
  );

  app.post(
    '/server-categories',
    {
      ...adminOnly,
      schema: {
        tags,
        summary: 'Create a server category (admin)',
        description: 'Slugs are unique among server categories (409 SLUG_TAKEN).',
        operationId: 'createServerCategory',
        body: CreateServerCategoryBody,
        security: SECURED,
        response: { 201: ref(ServerCategory), ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await catalogs.createCategory(requireActor(request).userId, request.body)),
  );

  app.patch(
    '/server-categories/:slug',
    {
      ...adminOnly,
      schema: {
        tags,
        summary: 'Edit a server category (admin): name, description, iconUrl, order',
        description:
          "Changes a server category's name, description, icon URL or order, addressed by the " +
          "category's slug or id. Admins only.",
        operationId: 'updateServerCategory',
        params: CatalogKeyParams,
        body: UpdateServerCategoryBody,
        security: SECURED,
        response: { 200: ref(ServerCategory), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) =>
      catalogs.updateCategory(requireActor(request).userId, request.params.slug, request.body),
  );

  app.delete(
    '/server-categories/:slug',
    {
      ...adminOnly,
      schema: {
        tags,
        summary: 'Delete a server category (admin); servers in it leave it',
        description:
          "Deletes a server category, addressed by the category's slug or id; servers in it leave it. Admins " +
          'only.',
        operationId: 'deleteServerCategory',
        params: CatalogKeyParams,
        security: SECURED,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await catalogs.deleteCategory(requireActor(request).userId, request.params.slug);
      return reply.status(204).send(null);
    },
  );
}
