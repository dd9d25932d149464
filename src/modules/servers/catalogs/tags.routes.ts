// /server-tags: public reads (the interface), admin writes (an extension, DESIGN §8 "Tags, categories").
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { requireActor, requireRole } from '../../../core/auth/authenticate.js';
import { SECURED } from '../../../core/http/openapi.js';
import { errors, ref } from '../../../core/http/schemas.js';
import { typed } from '../../../core/http/typed.js';
import {
  CatalogKeyParams,
  CatalogSlugParams,
  CreateServerTagBody,
  PopularTags,
  PopularTagsQuery,
  ServerTag,
  TagList,
  TagListQuery,
  TagSearchQuery,
  TagSearchResult,
  UpdateServerTagBody,
} from './catalogs.schemas.js';
import type { ServerCatalogsService } from './catalogs.service.js';

const tags = ['server-catalogs'];
const adminOnly = { preHandler: requireRole('ADMIN') };

export async function serverTagsRoutes(
  fastify: FastifyInstance,
  { catalogs }: { catalogs: ServerCatalogsService },
): Promise<void> {
  const app = typed(fastify);

  app.get(
    '/server-tags',
    {
      schema: {
        tags,
        summary: 'List server tags by name; search matches the name case-insensitively',
        description:
          'All server tags sorted by name, optionally filtered by a case-insensitive match on the name. ' +
          'Public.',
        operationId: 'listServerTags',
        querystring: TagListQuery,
        response: { 200: TagList, ...errors(400) },
      },
    },
    async (request) => {
      const { search, limit = 100, offset = 0 } = request.query;
      const { tags: items, total } = await catalogs.listTags(search, limit, offset);
      return { tags: items, total, meta: { total, limit, offset } };
    },
  );

  app.get(
    '/server-tags/search',
    {
      schema: {
        tags,
        summary: 'Autocomplete server tags: names containing q, most used first',
        description: 'Autocomplete for server tags: tags whose name contains q, most used first. Public.',
        operationId: 'searchServerTags',
        querystring: TagSearchQuery,
        response: { 200: TagSearchResult, ...errors(400) },
      },
    },
    async (request) => ({ tags: await catalogs.searchTags(request.query.q, request.query.limit ?? 10) }),
  );

  app.get(
    '/server-tags/popular',
    {
      schema: {
        tags,
        summary: 'The most used server tags (by APPROVED servers)',
        description: 'The tags carried by the most approved servers, most used first. Public.',
        operationId: 'listPopularServerTags',
        querystring: PopularTagsQuery,
        response: { 200: PopularTags, ...errors(400) },
      },
    },
    async (request) => ({ tags: await catalogs.popularTags(request.query.limit ?? 20) }),
  );

  app.get(
    '/server-tags/:slug',
    {
      schema: {
        tags,
        summary: 'A server tag by slug',
        description: 'A server tag by its slug. Public.',
        operationId: 'getServerTag',
        params: CatalogSlugParams,
        response: { 200: ref(ServerTag), ...errors(400, 404) },
      },
    },
    async (request) => catalogs.getTag(request.params.slug),
  );

  app.post(
    '/server-tags',
    {
      ...adminOnly,
      schema: {
        tags,
        summary: 'Create a server tag (admin)',
        description:
          'Slugs are unique among server tags; "search" and "popular" are reserved (409 SLUG_TAKEN).',
        operationId: 'createServerTag',
        body: CreateServerTagBody,
        security: SECURED,
        response: { 201: ref(ServerTag), ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await catalogs.createTag(requireActor(request).userId, request.body)),
  );

  app.patch(
    '/server-tags/:slug',
    {
      ...adminOnly,
      schema: {
        tags,
        summary: 'Edit a server tag (admin): name, description',
        description:
          "Changes a server tag's name or description, addressed by the tag's slug or id. Admins only.",
        operationId: 'updateServerTag',
        params: CatalogKeyParams,
        body: UpdateServerTagBody,
        security: SECURED,
        response: { 200: ref(ServerTag), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => catalogs.updateTag(requireActor(request).userId, request.params.slug, request.body),
  );

  app.delete(
    '/server-tags/:slug',
    {
      ...adminOnly,
      schema: {
        tags,
        summary: 'Delete a server tag (admin); servers carrying it lose it',
        description:
          "Deletes a server tag, addressed by the tag's slug or id; servers carrying it lose it. Admins only.",
        operationId: 'deleteServerTag',
        params: CatalogKeyParams,
        security: SECURED,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await catalogs.deleteTag(requireActor(request).userId, request.params.slug);
      return reply.status(204).send(null);
    },
  );
}
