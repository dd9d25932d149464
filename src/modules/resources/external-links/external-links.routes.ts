import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { requireActor, requireUser } from '../../../core/auth/authenticate.js';
import { SECURED } from '../../../core/http/openapi.js';
import { errors, ref } from '../../../core/http/schemas.js';
import { typed } from '../../../core/http/typed.js';
import { OPTIONAL_AUTH, ResourceIdParams } from '../resources.schemas.js';
import {
  CreateExternalLinkBody,
  ExternalLink,
  ExternalLinkList,
  ExternalLinkParams,
  ReorderExternalLinksBody,
  UpdateExternalLinkBody,
} from './external-links.schemas.js';
import type { ExternalLinksService } from './external-links.service.js';

const tags = ['resources'];
const security = SECURED;
const writeErrors = errors(400, 401, 403, 404);

export async function resourceExternalLinksRoutes(
  fastify: FastifyInstance,
  { externalLinks }: { externalLinks: ExternalLinksService },
): Promise<void> {
  const app = typed(fastify);

  app.get(
    '/resources/:id/external-links',
    {
      schema: {
        tags,
        summary: 'The external links of a resource, in display order',
        description:
          'The external links of a resource (source code, wiki, issue tracker…) in display order. ' +
          'Readable by whoever may see the resource.',
        operationId: 'listResourceExternalLinks',
        params: ResourceIdParams,
        security: OPTIONAL_AUTH,
        response: { 200: ExternalLinkList, ...errors(400, 404) },
      },
    },
    async (request) => ({ externalLinks: await externalLinks.list(request.actor, request.params.id) }),
  );

  app.post(
    '/resources/:id/external-links',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Add an external link (owner side or contributor; at most 20, 409 LIMIT_REACHED)',
        description:
          "Adds an external link at the end of the list. The resource's owner side or a contributor may; " +
          'at most 20 links (409 LIMIT_REACHED).',
        operationId: 'createResourceExternalLink',
        params: ResourceIdParams,
        body: CreateExternalLinkBody,
        security,
        response: { 201: ref(ExternalLink), ...writeErrors, ...errors(409) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await externalLinks.create(requireActor(request), request.params.id, request.body)),
  );

  app.patch(
    '/resources/:id/external-links/reorder',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Reorder the external links; linkIds must list exactly the existing IDs (else 400)',
        description:
          'Sets the display order of the external links: linkIds must list every existing link id exactly ' +
          "once (else 400). The resource's owner side or a contributor may.",
        operationId: 'reorderResourceExternalLinks',
        params: ResourceIdParams,
        body: ReorderExternalLinksBody,
        security,
        response: {
          200: Type.Object({ message: Type.String(), externalLinks: Type.Array(ref(ExternalLink)) }),
          ...writeErrors,
        },
      },
    },
    async (request) => ({
      message: 'External links reordered',
      externalLinks: await externalLinks.reorder(
        requireActor(request),
        request.params.id,
        request.body.linkIds,
      ),
    }),
  );

  app.patch(
    '/resources/:id/external-links/:linkId',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Change the title or URL of an external link (owner side or contributor)',
        description:
          "Changes the title or URL of one external link. The resource's owner side or a contributor " +
          'may.',
        operationId: 'updateResourceExternalLink',
        params: ExternalLinkParams,
        body: UpdateExternalLinkBody,
        security,
        response: { 200: ref(ExternalLink), ...writeErrors },
      },
    },
    async (request) =>
      externalLinks.update(requireActor(request), request.params.id, request.params.linkId, request.body),
  );

  app.delete(
    '/resources/:id/external-links/:linkId',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Remove an external link (owner side or contributor); the others keep a gapless order',
        description:
          "Removes one external link; the others close the gap in the order. The resource's owner side " +
          'or a contributor may.',
        operationId: 'deleteResourceExternalLink',
        params: ExternalLinkParams,
        security,
        response: { 204: Type.Null(), ...writeErrors },
      },
    },
    async (request, reply) => {
      await externalLinks.remove(requireActor(request), request.params.id, request.params.linkId);
      return reply.status(204).send(null);
    },
  );
}
