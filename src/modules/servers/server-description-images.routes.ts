// Server description images: the shared module at /servers/description-images/:serverId/…; uploading needs
// manage rights (owner or team member), the temporary list and deletion need a server the caller can see.
import type { FastifyInstance } from 'fastify';
import type { ServerAccess } from '../../core/auth/server-access.js';
import { requireActor } from '../../core/auth/authenticate.js';
import { registerDescriptionImageRoutes } from '../description-images/description-images.routes.js';
import type { DescriptionImagesService } from '../description-images/description-images.service.js';

export async function serverDescriptionImagesRoutes(
  fastify: FastifyInstance,
  {
    serverAccess,
    descriptionImages,
  }: { serverAccess: ServerAccess; descriptionImages: DescriptionImagesService },
): Promise<void> {
  await registerDescriptionImageRoutes(fastify, {
    prefix: '/servers/description-images',
    ownerParam: 'serverId',
    ownerType: 'SERVER',
    tag: 'servers',
    name: 'ServerDescriptionImage',
    service: descriptionImages,
    authorizeEdit: async (request, serverId) =>
      void (await serverAccess.authorizeById(requireActor(request), 'server.manage', serverId)),
    authorizeView: async (request, serverId) =>
      void (await serverAccess.authorizeById(requireActor(request), 'server.view', serverId)),
  });
}
