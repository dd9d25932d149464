import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { requireActor, requireRole } from '../../core/auth/authenticate.js';
import { SECURED } from '../../core/http/openapi.js';
import { errors, ref } from '../../core/http/schemas.js';
import { typed } from '../../core/http/typed.js';
import {
  CreateResourceTagBody,
  PopularResourceTag,
  PopularTagsParams,
  PopularTagsQuery,
  ResourceTag,
  ResourceTagList,
  ResourceTagListQuery,
  ResourceTagSearchQuery,
  ResourceTagSearchResult,
  TagIdParams,
  TagSlugParams,
  UpdateResourceTagBody,
} from './resource-tags.schemas.js';
import type { ResourceTagsService } from './resource-tags.service.js';

const tags = ['resource-tags'];
const admins = requireRole('ADMIN');
const security = SECURED;

export async function resourceTagsRoutes(
  fastify: FastifyInstance,
  { resourceTags }: { resourceTags: ResourceTagsService },
): Promise<void> {
  const app = typed(fastify);

  app.get(
    '/resource-tags',
    {
      schema: {
        tags,
        summary: 'All resource tags by name; search matches the name case-insensitively',
        description:
          'All resource tags sorted by name, optionally filtered by a case-insensitive match on the name. ' +
          'Public.',
        operationId: 'listResourceTags',
        querystring: ResourceTagListQuery,
        response: { 200: ResourceTagList, ...errors(400) },
      },
    },
    async (request) => {
      const { search, limit = 100, offset = 0 } = request.query;
      const result = await resourceTags.list(search, limit, offset);
      return { ...result, meta: { total: result.total, limit, offset } };
    },
  );

  app.get(
    '/resource-tags/search',
    {
      schema: {
        tags,
        summary: 'Tag autocomplete: name or slug contains q; most used first',
        description:
          'Autocomplete for resource tags: tags whose name or slug contains q, most used first. Public.',
        operationId: 'searchResourceTags',
        querystring: ResourceTagSearchQuery,
        response: { 200: ResourceTagSearchResult, ...errors(400) },
      },
    },
    async (request) => ({ tags: await resourceTags.search(request.query.q, request.query.limit ?? 10) }),
  );

  app.get(
    '/resource-tags/popular/:type',
    {
      schema: {
        tags,
        summary: 'The tags most used by resources of a type',
        description: 'The tags carried by the most resources of one type, most used first. Public.',
        operationId: 'listPopularResourceTags',
        params: PopularTagsParams,
        querystring: PopularTagsQuery,
        response: { 200: Type.Object({ tags: Type.Array(ref(PopularResourceTag)) }), ...errors(400) },
      },
    },
    async (request) => ({
      tags: await resourceTags.popular(request.params.type, request.query.limit ?? 20),
    }),
  );

  app.get(
    '/resource-tags/slug/:slug',
    {
      schema: {
        tags,
        summary: 'A resource tag by slug',
        description: 'A resource tag by its slug. Public.',
        operationId: 'getResourceTagBySlug',
        params: TagSlugParams,
        response: { 200: ref(ResourceTag), ...errors(400, 404) },
      },
    },
    async (request) => resourceTags.get({ slug: request.params.slug }),
  );

  app.get(
    '/resource-tags/:id',
    {
      schema: {
        tags,
        summary: 'A resource tag by ID',
        description: 'A resource tag by its id. Public.',
        operationId: 'getResourceTag',
        params: TagIdParams,
        response: { 200: ref(ResourceTag), ...errors(400, 404) },
      },
    },
    async (request) => resourceTags.get({ id: request.params.id }),
  );

  app.post(
    '/resource-tags',
    {
      preHandler: admins,
      schema: {
        tags,
        summary: 'Create a resource tag (admin)',
        description: 'The slug is unique (409 SLUG_TAKEN).',
        operationId: 'createResourceTag',
        body: CreateResourceTagBody,
        security,
        response: { 201: ref(ResourceTag), ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await resourceTags.create(requireActor(request).userId, request.body)),
  );

  app.patch(
    '/resource-tags/:id',
    {
      preHandler: admins,
      schema: {
        tags,
        summary: 'Edit a resource tag (admin)',
        description: 'Changes a resource tag. Admins only.',
        operationId: 'updateResourceTag',
        params: TagIdParams,
        body: UpdateResourceTagBody,
        security,
        response: { 200: ref(ResourceTag), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => resourceTags.update(requireActor(request).userId, request.params.id, request.body),
  );

  app.delete(
    '/resource-tags/:id',
    {
      preHandler: admins,
      schema: {
        tags,
        summary: 'Delete a resource tag (admin); resources carrying it lose it',
        description: 'Deletes a resource tag; resources carrying it lose it. Admins only.',
        operationId: 'deleteResourceTag',
        params: TagIdParams,
        security,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await resourceTags.remove(requireActor(request).userId, request.params.id);
      return reply.status(204).send(null);
    },
  );
}
