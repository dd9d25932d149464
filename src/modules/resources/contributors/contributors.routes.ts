import type { FastifyInstance } from 'fastify';
import { requireActor, requireUser } from '../../../core/auth/authenticate.js';
import { SECURED } from '../../../core/http/openapi.js';
import { Message, errors, ref } from '../../../core/http/schemas.js';
import { typed } from '../../../core/http/typed.js';
import {
  AddContributorBody,
  ChangeContributorRoleBody,
  Contributor,
  ContributorList,
  ContributorParams,
  ContributorRoleResult,
  ResourceParams,
} from './contributors.schemas.js';
import type { ContributorsService } from './contributors.service.js';

const tags = ['resources'];
const security = SECURED;

export async function resourceContributorsRoutes(
  fastify: FastifyInstance,
  { contributors }: { contributors: ContributorsService },
): Promise<void> {
  const app = typed(fastify);

  app.post(
    '/resources/:resourceId/contributors',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Add a contributor (resource owner only: the user owner, or the owning team OWNER or ADMIN)',
        description:
          'Unknown user: 404. Already a contributor: 409 ALREADY_CONTRIBUTOR. The owning user: 400.',
        operationId: 'addResourceContributor',
        params: ResourceParams,
        body: AddContributorBody,
        security,
        response: { 201: ref(Contributor), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await contributors.add(requireActor(request), request.params.resourceId, request.body)),
  );

  app.get(
    '/resources/:resourceId/contributors',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'The contributors of a resource, oldest first',
        description:
          'The users credited on a resource with their roles, oldest first. Readable by whoever may see ' +
          'the resource.',
        operationId: 'listResourceContributors',
        params: ResourceParams,
        security,
        response: { 200: ContributorList, ...errors(400, 401, 404) },
      },
    },
    async (request) => ({
      contributors: await contributors.list(requireActor(request), request.params.resourceId),
    }),
  );

  app.patch(
    '/resources/:resourceId/contributors/:userId',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: "Change a contributor's role (owner or maintainer)",
        description:
          "Changes a contributor's role on the resource. Only the resource's owner or a maintainer may.",
        operationId: 'updateResourceContributorRole',
        params: ContributorParams,
        body: ChangeContributorRoleBody,
        security,
        response: { 200: ContributorRoleResult, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) =>
      contributors.changeRole(
        requireActor(request),
        request.params.resourceId,
        request.params.userId,
        request.body.role,
      ),
  );

  app.delete(
    '/resources/:resourceId/contributors/:userId',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Remove a contributor (owner or maintainer); a contributor may remove themselves',
        description:
          'Removes a contributor from the resource. The owner or a maintainer may remove anyone; a ' +
          'contributor may remove themselves.',
        operationId: 'removeResourceContributor',
        params: ContributorParams,
        security,
        response: { 200: ref(Message), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      await contributors.remove(requireActor(request), request.params.resourceId, request.params.userId);
      return { message: 'Contributor removed' };
    },
  );
}
