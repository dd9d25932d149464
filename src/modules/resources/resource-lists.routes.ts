import { Type } from 'typebox';
import type { Static } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { requireActor, requireUser } from '../../core/auth/authenticate.js';
import { SECURED } from '../../core/http/openapi.js';
import { Id, Limit, PageQuery, errors } from '../../core/http/schemas.js';
import { typed } from '../../core/http/typed.js';
import { renderWith, sendRendered } from '../../core/http/rendered.js';
import type { DirectoryCache } from '../../core/http/page-cache.js';
import type { ResourceListsService } from './resource-lists.service.js';
import { OPTIONAL_AUTH, ResourceCatalogue, ResourceList, ResourceListQuery } from './resources.schemas.js';

const tags = ['resources'];
const visibilityNote =
  'The public sees APPROVED resources only; the owner side, contributors and moderators also see the others ' +
  '(with their `status`).';

/** Equal for queries that always give the same page (list filters are sets). */
function catalogueKey(query: Static<typeof ResourceListQuery>): string {
  const set = (values: string[] | undefined) => [...new Set(values ?? [])].sort().join(',');
  return JSON.stringify([
    query.page ?? 1,
    query.limit ?? 20,
    query.sortBy ?? 'date',
    query.type ?? '',
    query.search ?? '',
    set(query.tags),
    set(query.categories),
    set(query.versions),
    set(query.facets),
  ]);
}

export async function resourceListsRoutes(
  fastify: FastifyInstance,
  { lists, cache }: { lists: ResourceListsService; cache: DirectoryCache },
): Promise<void> {
  const app = typed(fastify);

  app.get(
    '/resources',
    {
      schema: {
        tags,
        summary: 'Browse APPROVED resources: filter by type, search, tags, categories and game versions',
        description:
          'Filters combine with AND; within one filter (tags, categories, versions) a resource matches when it ' +
          'has any of the values. `search` is full-text with optional relevance order (`sortBy=relevance`); ' +
          '`facets` adds counts per type, tag, category and game version over all matches. Totals never count ' +
          'the whole table: counters answer the unfiltered list, a type, and one value of one catalog filter; ' +
          'searches and other combinations are counted through the indexes up to 10,000 (`meta.totalExact`). ' +
          'Pages are cached for up to 5 seconds: moderation, edits, images, likes, favorites, catalog changes ' +
          'and deletions show at once; owner names and avatars, and counters changed elsewhere, within those 5 ' +
          'seconds.',
        operationId: 'listResources',
        querystring: ResourceListQuery,
        response: { 200: ResourceCatalogue, ...errors(400) },
      },
    },
    async (request, reply) => {
      const page = await cache.page(catalogueKey(request.query), () =>
        renderWith(reply, lists.listPublic(request.query)),
      );
      return sendRendered(reply, page);
    },
  );

  app.get(
    '/resources/me',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Resources you own yourself, in every status, newest first',
        description: 'Team-owned resources are listed under /resources/team/:teamId.',
        operationId: 'listMyResources',
        querystring: PageQuery,
        security: SECURED,
        response: { 200: ResourceList, ...errors(400, 401) },
      },
    },
    async (request) => {
      const { page = 1, limit = 20 } = request.query;
      return lists.listMine(requireActor(request), { page, limit });
    },
  );

  app.get(
    '/resources/user/:userId',
    {
      schema: {
        tags,
        summary: "A user's own resources, newest first",
        description: visibilityNote,
        operationId: 'listUserResources',
        params: Type.Object({ userId: Id }),
        querystring: PageQuery,
        security: OPTIONAL_AUTH,
        response: { 200: ResourceList, ...errors(400, 404) },
      },
    },
    async (request) => {
      const { page = 1, limit = 20 } = request.query;
      return lists.listOfUser(request.actor, request.params.userId, { page, limit });
    },
  );

  app.get(
    '/resources/team/:teamId',
    {
      schema: {
        tags,
        summary: "A team's resources, newest first",
        description: `${visibilityNote} Team members see all of the team's resources.`,
        operationId: 'listTeamResources',
        params: Type.Object({ teamId: Id }),
        querystring: PageQuery,
        security: OPTIONAL_AUTH,
        response: { 200: ResourceList, ...errors(400, 404) },
      },
    },
    async (request) => {
      const { page = 1, limit = 20 } = request.query;
      return lists.listOfTeam(request.actor, request.params.teamId, { page, limit });
    },
  );

  app.get(
    '/teams/:id/resources',
    {
      schema: {
        tags,
        summary: "A team's resources (same as /resources/team/:teamId, 100 per page by default)",
        description: `${visibilityNote} Team members see all of the team's resources.`,
        operationId: 'listResourcesOfTeam',
        params: Type.Object({ id: Id }),
        querystring: Type.Object({
          page: PageQuery.properties.page,
          limit: Type.Optional(Limit(100)),
          offset: PageQuery.properties.offset,
        }),
        security: OPTIONAL_AUTH,
        response: { 200: ResourceList, ...errors(400, 404) },
      },
    },
    async (request) => {
      const { page = 1, limit = 100 } = request.query;
      return lists.listOfTeam(request.actor, request.params.id, { page, limit });
    },
  );
}
