// The description-image routes, mounted for resources and for servers with their own prefix and access checks.
import { Type } from 'typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireActor, requireUser } from '../../core/auth/authenticate.js';
import { readBufferedUpload } from '../../core/http/multipart.js';
import { SECURED } from '../../core/http/openapi.js';
import { multipartForm } from '../../core/http/openapi-multipart.js';
import { uploadLimit } from '../../core/http/rate-limits.js';
import { Id, Message, errors, ref } from '../../core/http/schemas.js';
import { typed } from '../../core/http/typed.js';
import { IMAGE_LIMITS } from '../../core/images.js';
import { DescriptionImage } from './description-images.schemas.js';
import type { DescriptionImageOwnerType, DescriptionImagesService } from './description-images.service.js';

export interface DescriptionImageRoutesOptions {
  /** '/resources/description-images' or '/servers/description-images' */
  prefix: string;
  /** 'resourceId' or 'serverId' */
  ownerParam: string;
  ownerType: DescriptionImageOwnerType;
  tag: string;
  /** Operation id stem, e.g. 'ResourceDescriptionImage'. */
  name: string;
  service: DescriptionImagesService;
  /** Throws 401/404/403 unless the caller may edit the owner (needed to upload). */
  authorizeEdit(request: FastifyRequest, ownerId: string): Promise<void>;
  /** Throws 401/404 unless the owner exists and the caller may see it. */
  authorizeView(request: FastifyRequest, ownerId: string): Promise<void>;
}

export async function registerDescriptionImageRoutes(
  fastify: FastifyInstance,
  options: DescriptionImageRoutesOptions,
): Promise<void> {
  const app = typed(fastify);
  const { prefix, ownerParam, ownerType, tag, name, service } = options;
  const ownerParams = Type.Object({ [ownerParam]: Id });
  const ownerIdOf = (request: FastifyRequest) => (request.params as Record<string, string>)[ownerParam]!;
  const what = ownerType === 'RESOURCE' ? 'resource' : 'server';

  app.post(
    `${prefix}/:${ownerParam}/upload`,
    {
      preHandler: requireUser,
      config: uploadLimit,
      schema: {
        tags: [tag],
        summary: `Upload an image for the ${what} description (PNG, JPG, WEBP or GIF)`,
        description:
          'multipart/form-data with one file field `file`, at most 5 MiB. Needs edit rights on the ' +
          `${what}. 201 for a new image; 200 with the existing image when the same picture was already ` +
          'uploaded for it. The image stays temporary until a saved description contains its URL; at most 20 ' +
          'temporary images per user (409 TEMPORARY_IMAGE_LIMIT).',
        operationId: `upload${name}`,
        ...multipartForm({ file: 'file', fileDescription: 'PNG, JPG, WEBP or GIF; at most 5 MiB' }),
        params: ownerParams,
        security: SECURED,
        response: {
          200: ref(DescriptionImage),
          201: ref(DescriptionImage),
          ...errors(400, 401, 403, 404, 409, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const ownerId = ownerIdOf(request);
      await options.authorizeEdit(request, ownerId);
      const upload = await readBufferedUpload(request, 'file', IMAGE_LIMITS.maxBytes);
      const { image, created } = await service.upload(
        ownerType,
        ownerId,
        requireActor(request).userId,
        upload,
      );
      return reply.status(created ? 201 : 200).send(image);
    },
  );

  app.get(
    `${prefix}/:${ownerParam}/temporary`,
    {
      preHandler: requireUser,
      schema: {
        tags: [tag],
        summary: `Your temporary images for this ${what} description`,
        description:
          `The description images you uploaded for this ${what} that no saved description uses yet. Needs ` +
          `credentials and access to the ${what}.`,
        operationId: `listTemporary${name}s`,
        params: ownerParams,
        security: SECURED,
        response: {
          200: Type.Object({ images: Type.Array(ref(DescriptionImage)) }),
          ...errors(400, 401, 404),
        },
      },
    },
    async (request) => {
      const ownerId = ownerIdOf(request);
      await options.authorizeView(request, ownerId);
      return { images: await service.listTemporary(ownerType, ownerId, requireActor(request).userId) };
    },
  );

  app.delete(
    `${prefix}/:${ownerParam}/:imageId`,
    {
      preHandler: requireUser,
      schema: {
        tags: [tag],
        summary: 'Delete a description image you uploaded that the saved description does not use',
        description:
          `Deletes a description image you uploaded, as long as the saved ${what} description does not ` +
          `use it (else 409). Needs credentials.`,
        operationId: `delete${name}`,
        params: Type.Object({ ...ownerParams.properties, imageId: Id }),
        security: SECURED,
        response: { 200: ref(Message), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const ownerId = ownerIdOf(request);
      await options.authorizeView(request, ownerId);
      const { imageId } = request.params as { imageId: string };
      await service.remove(ownerType, ownerId, imageId, requireActor(request).userId);
      return { message: 'Description image deleted' };
    },
  );
}
