// Resource description images: the shared module at /resources/description-images/:resourceId/…. Uploading
// needs edit rights on the resource; the temporary list and deletion need a resource the caller can see.
import type { FastifyInstance } from 'fastify';
import { requireActor } from '../../core/auth/authenticate.js';
import type { ResourceAccess } from '../../core/auth/resource-access.js';
import { registerDescriptionImageRoutes } from '../description-images/description-images.routes.js';
import type { DescriptionImagesService } from '../description-images/description-images.service.js';
import type { ResourcesService } from './resources.service.js';

export async function resourceDescriptionImagesRoutes(
  fastify: FastifyInstance,
  deps: {
    resources: Pick<ResourcesService, 'requireHead'>;
    resourceAccess: ResourceAccess;
    descriptionImages: DescriptionImagesService;
  },
): Promise<void> {
  const { resources, resourceAccess, descriptionImages } = deps;
  await registerDescriptionImageRoutes(fastify, {
    prefix: '/resources/description-images',
    ownerParam: 'resourceId',
    ownerType: 'RESOURCE',
    tag: 'resources',
    name: 'ResourceDescriptionImage',
    service: descriptionImages,
    // 401 before 404 before 403, as on every resource route.
    authorizeEdit: async (request, resourceId) => {
      const actor = requireActor(request);
      await resourceAccess.authorize(actor, await resources.requireHead(resourceId), 'resource.edit');
    },
    authorizeView: async (request, resourceId) => {
      const actor = requireActor(request);
      await resourceAccess.authorizeView(actor, await resources.requireHead(resourceId));
    },
  });
}
