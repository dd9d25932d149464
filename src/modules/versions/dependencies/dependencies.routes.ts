// Dependents and the dependency tree (spec/extensions.md §2.2). Public: no authentication is read.
import type { FastifyInstance } from 'fastify';
import { errors, ref } from '../../../core/http/schemas.js';
import { typed } from '../../../core/http/typed.js';
import { VERSION_TAGS } from '../versions.routes.js';
import {
  DependencyTree,
  DependentsList,
  DependentsQuery,
  MAX_TREE_DEPTH,
  ResourceIdParams,
  TreeQuery,
} from './dependencies.schemas.js';
import type { DependenciesService } from './dependencies.service.js';

const PUBLIC_ROOT = 'The resource must be APPROVED (404 otherwise); the answer is the same for every caller.';

export async function dependenciesRoutes(
  fastify: FastifyInstance,
  { dependencies }: { dependencies: DependenciesService },
): Promise<void> {
  const app = typed(fastify);

  app.get(
    '/resources/:resourceId/dependents',
    {
      schema: {
        tags: VERSION_TAGS,
        summary: 'Resources that depend on this one',
        description:
          'APPROVED resources whose newest APPROVED version (by approval time, then creation time) declares a ' +
          'dependency on this resource or on one of its versions, with that dependency’s type and the version ' +
          `that declares it. Ordered by name; type filters by dependency type. ${PUBLIC_ROOT}`,
        operationId: 'listDependents',
        params: ResourceIdParams,
        querystring: DependentsQuery,
        security: [],
        response: { 200: DependentsList, ...errors(400, 404) },
      },
    },
    async (request) => dependencies.dependents(request.params.resourceId, request.query),
  );

  app.get(
    '/resources/:resourceId/dependencies/tree',
    {
      schema: {
        tags: VERSION_TAGS,
        summary: 'The REQUIRED dependencies of a version, resolved to versions',
        description:
          'Breadth first from the version (default the newest APPROVED one; a given versionId must be an ' +
          'APPROVED or ARCHIVED version of this resource, 404 otherwise). A resource target resolves to its ' +
          'newest APPROVED version, a version target to that version while it is publicly visible. Each resource ' +
          `appears once (the shallowest path wins, which cuts cycles); depth stops at ${MAX_TREE_DEPTH} and ` +
          '`truncated` says whether anything was left. External, deleted, invisible or unreleased targets are ' +
          `listed in \`missing\` with a reason. ${PUBLIC_ROOT}`,
        operationId: 'getDependencyTree',
        params: ResourceIdParams,
        querystring: TreeQuery,
        security: [],
        response: { 200: ref(DependencyTree), ...errors(400, 404) },
      },
    },
    async (request) => dependencies.tree(request.params.resourceId, request.query.versionId),
  );
}
