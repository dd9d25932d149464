// Server social links: the shared social-links routes at /servers/:id/social-links. Reading is public for
// APPROVED servers (and for those who may see the others); writing needs manage rights (owner or team member).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerAccess } from '../../core/auth/server-access.js';
import { requireActor } from '../../core/auth/authenticate.js';
import { registerSocialLinkRoutes } from '../social-links/social-links.routes.js';
import { SERVER_PLATFORMS } from '../social-links/social-links.schemas.js';
import type { SocialLinksService } from '../social-links/social-links.service.js';

const serverId = (request: FastifyRequest) => (request.params as { id: string }).id;

export async function serverSocialLinksRoutes(
  fastify: FastifyInstance,
  { serverAccess, socialLinks }: { serverAccess: ServerAccess; socialLinks: SocialLinksService },
): Promise<void> {
  await registerSocialLinkRoutes(fastify, {
    path: '/servers/:id/social-links',
    ownerType: 'SERVER',
    platforms: SERVER_PLATFORMS,
    tag: 'servers',
    name: 'ServerSocialLink',
    service: socialLinks,
    readOwner: async (request) =>
      (await serverAccess.authorizeById(request.actor, 'server.view', serverId(request))).id,
    // 401 before 404 before 403, as on every other server route.
    writeOwner: async (request) =>
      (await serverAccess.authorizeById(requireActor(request), 'server.manage', serverId(request))).id,
    readIsPublic: true,
  });
}
