// One route set for the social links of any owner; users, teams and servers mount it with their own
// path, auth and ownership check.
import { Type } from 'typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { typed } from '../../core/http/typed.js';
import { SECURED } from '../../core/http/openapi.js';
import { Id, errors, ref } from '../../core/http/schemas.js';
import type { SocialLinkOwnerType } from './social-links.repo.js';
import type { SocialLinksService } from './social-links.service.js';
import {
  ReorderBody,
  SocialLink,
  SocialLinkList,
  socialLinkBody,
  socialLinkPatchBody,
} from './social-links.schemas.js';

export interface SocialLinkRoutesOptions {
  /** e.g. '/users/me/social-links' or '/teams/:id/social-links'. */
  path: string;
  ownerType: SocialLinkOwnerType;
  platforms: readonly string[];
  tag: string;
  /** Operation id stem, e.g. 'UserSocialLink' → listUserSocialLinks, createUserSocialLink… */
  name: string;
  service: SocialLinksService;
  /** Owner id for reads; may require auth (users) or not (teams, servers). */
  readOwner(request: FastifyRequest): Promise<string>;
  /** Owner id for writes; throws 401/403/404 when the caller may not manage the links. */
  writeOwner(request: FastifyRequest): Promise<string>;
  readIsPublic: boolean;
}

export async function registerSocialLinkRoutes(
  fastify: FastifyInstance,
  options: SocialLinkRoutesOptions,
): Promise<void> {
  const app = typed(fastify);
  const { path, ownerType, service, tag, name } = options;
  const params = path.includes(':id') ? Type.Object({ id: Id }) : Type.Object({});
  const linkParams = Type.Object({ ...params.properties, linkId: Id });
  const writeErrors = errors(400, 401, 403, 404);
  const security = { security: SECURED };

  app.get(
    path,
    {
      schema: {
        tags: [tag],
        summary: `List the social links (ordered)`,
        description:
          'The social links in display order. Readable by anyone for teams and servers they may see; a ' +
          "profile's own list needs credentials.",
        operationId: `list${name}s`,
        params,
        ...(options.readIsPublic ? {} : security),
        response: { 200: SocialLinkList, ...errors(401, 404) },
      },
    },
    async (request) => ({ socialLinks: await service.list(ownerType, await options.readOwner(request)) }),
  );

  app.post(
    path,
    {
      schema: {
        tags: [tag],
        summary: 'Add a social link (at most 10)',
        description:
          'Adds a social link (platform and http(s) URL) at the end of the list; at most 10 (409). Only ' +
          'who may edit the profile, team or server.',
        operationId: `create${name}`,
        params,
        body: socialLinkBody(options.platforms),
        ...security,
        response: { 201: ref(SocialLink), ...writeErrors, ...errors(409) },
      },
    },
    async (request, reply) => {
      const ownerId = await options.writeOwner(request);
      return reply.status(201).send(await service.create(ownerType, ownerId, request.body));
    },
  );

  app.patch(
    `${path}/reorder`,
    {
      schema: {
        tags: [tag],
        summary: 'Reorder the social links; linkIds must list exactly the existing ids',
        description:
          'Sets the display order: linkIds must list every existing link id exactly once (else 400). Only ' +
          'who may edit the profile, team or server.',
        operationId: `reorder${name}s`,
        params,
        body: ReorderBody,
        ...security,
        response: {
          200: Type.Object({ message: Type.String(), socialLinks: Type.Array(ref(SocialLink)) }),
          ...writeErrors,
        },
      },
    },
    async (request) => {
      const ownerId = await options.writeOwner(request);
      const socialLinks = await service.reorder(ownerType, ownerId, request.body.linkIds);
      return { message: 'Social links reordered', socialLinks };
    },
  );

  app.patch(
    `${path}/:linkId`,
    {
      schema: {
        tags: [tag],
        summary: 'Change a social link',
        description:
          'Changes the platform or URL of one social link. Only who may edit the profile, team or server.',
        operationId: `update${name}`,
        params: linkParams,
        body: socialLinkPatchBody(options.platforms),
        ...security,
        response: { 200: ref(SocialLink), ...writeErrors },
      },
    },
    async (request) => {
      const ownerId = await options.writeOwner(request);
      const { linkId } = request.params as { linkId: string };
      return service.update(ownerType, ownerId, linkId, request.body);
    },
  );

  app.delete(
    `${path}/:linkId`,
    {
      schema: {
        tags: [tag],
        summary: 'Remove a social link (the others keep a gapless order)',
        description:
          'Removes one social link; the others close the gap in the order. Only who may edit the profile, ' +
          'team or server.',
        operationId: `delete${name}`,
        params: linkParams,
        ...security,
        response: { 204: Type.Null(), ...writeErrors },
      },
    },
    async (request, reply) => {
      const ownerId = await options.writeOwner(request);
      const { linkId } = request.params as { linkId: string };
      await service.remove(ownerType, ownerId, linkId);
      return reply.status(204).send(null);
    },
  );
}
