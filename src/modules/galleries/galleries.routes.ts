import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { requireActor, requireUser } from '../../core/auth/authenticate.js';
import { readBufferedUpload } from '../../core/http/multipart.js';
import { SECURED } from '../../core/http/openapi.js';
import { multipartForm } from '../../core/http/openapi-multipart.js';
import { uploadLimit } from '../../core/http/rate-limits.js';
import { errors, Message, ref } from '../../core/http/schemas.js';
import { typed } from '../../core/http/typed.js';
import { IMAGE_LIMITS } from '../../core/images.js';
import { OPTIONAL_AUTH } from '../resources/resources.schemas.js';
import {
  GalleryImage,
  GalleryImageList,
  GalleryImageParams,
  GalleryParams,
  MAX_ALT_TEXT,
  MAX_CAPTION,
  MAX_GALLERY_IMAGES,
  ReorderGalleryBody,
  ReplacedGalleryImage,
  UpdateGalleryImageBody,
} from './galleries.schemas.js';
import type { GalleriesService } from './galleries.service.js';

const tags = ['galleries'];
const security = SECURED;
const manage = 'Owner side or contributor. ';
const visibility =
  'Follows the resource: a resource that is not APPROVED is 404 to all but its owner side, ' +
  'contributors and moderators.';
const imageRules =
  'PNG, JPG or WEBP, at most 5 MiB and 25 megapixels (413 beyond, 415 for another kind); re-encoded without ' +
  'metadata, fitted inside 2560x1440, with a WEBP thumbnail inside 400x300.';

export async function galleriesRoutes(
  fastify: FastifyInstance,
  { galleries }: { galleries: GalleriesService },
): Promise<void> {
  const app = typed(fastify);

  app.post(
    '/resources/:resourceId/gallery-images',
    {
      preHandler: requireUser,
      config: uploadLimit,
      schema: {
        tags,
        summary: 'Add a gallery image (placed last)',
        description:
          `${manage}multipart/form-data: \`image\` (required), \`caption\` (≤ 500) and \`altText\` (≤ 250) ` +
          `optional. ${imageRules} At most ${MAX_GALLERY_IMAGES} images (409 LIMIT_REACHED).`,
        operationId: 'uploadGalleryImage',
        ...multipartForm({
          file: 'image',
          fileDescription: 'PNG, JPG or WEBP; at most 5 MiB',
          fields: {
            caption: Type.String({ maxLength: MAX_CAPTION }),
            altText: Type.String({ maxLength: MAX_ALT_TEXT }),
          },
        }),
        params: GalleryParams,
        security,
        response: { 201: ref(GalleryImage), ...errors(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const image = await galleries.create(requireActor(request), request.params.resourceId, async () => {
        const upload = await readBufferedUpload(request, 'image', IMAGE_LIMITS.maxBytes);
        return { data: upload.data, fields: upload.fields };
      });
      return reply.status(201).send(image);
    },
  );

  app.get(
    '/resources/:resourceId/gallery-images',
    {
      schema: {
        tags,
        summary: 'The gallery of a resource, in display order',
        description: visibility,
        operationId: 'listGalleryImages',
        params: GalleryParams,
        security: OPTIONAL_AUTH,
        response: { 200: GalleryImageList, ...errors(400, 401, 404) },
      },
    },
    async (request) => ({ images: await galleries.list(request.actor, request.params.resourceId) }),
  );

  app.put(
    '/resources/:resourceId/gallery-images/reorder',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Reorder the gallery; imageIds must list exactly the existing IDs (else 400)',
        description: manage,
        operationId: 'reorderGalleryImages',
        params: GalleryParams,
        body: ReorderGalleryBody,
        security,
        response: { 200: ref(Message), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      await galleries.reorder(requireActor(request), request.params.resourceId, request.body.imageIds);
      return { message: 'Gallery images reordered' };
    },
  );

  app.get(
    '/resources/:resourceId/gallery-images/:imageId',
    {
      schema: {
        tags,
        summary: 'One gallery image',
        description: visibility,
        operationId: 'getGalleryImage',
        params: GalleryImageParams,
        security: OPTIONAL_AUTH,
        response: { 200: ref(GalleryImage), ...errors(400, 401, 404) },
      },
    },
    async (request) => galleries.get(request.actor, request.params.resourceId, request.params.imageId),
  );

  app.patch(
    '/resources/:resourceId/gallery-images/:imageId',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Change the caption or alt text of a gallery image (null or "" clears)',
        description: manage,
        operationId: 'updateGalleryImage',
        params: GalleryImageParams,
        body: UpdateGalleryImageBody,
        security,
        response: { 200: ref(GalleryImage), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) =>
      galleries.update(
        requireActor(request),
        request.params.resourceId,
        request.params.imageId,
        request.body,
      ),
  );

  app.post(
    '/resources/:resourceId/gallery-images/:imageId/replace',
    {
      preHandler: requireUser,
      config: uploadLimit,
      schema: {
        tags,
        summary: 'Replace the picture of a gallery image, keeping its position, caption and alt text',
        description: `${manage}multipart/form-data: \`image\`. ${imageRules}`,
        operationId: 'replaceGalleryImage',
        ...multipartForm({ file: 'image', fileDescription: 'PNG, JPG or WEBP; at most 5 MiB' }),
        params: GalleryImageParams,
        security,
        response: { 200: ReplacedGalleryImage, ...errors(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request) =>
      galleries.replace(
        requireActor(request),
        request.params.resourceId,
        request.params.imageId,
        async () => {
          return (await readBufferedUpload(request, 'image', IMAGE_LIMITS.maxBytes)).data;
        },
      ),
  );

  app.delete(
    '/resources/:resourceId/gallery-images/:imageId',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Delete a gallery image; the others keep a gapless order from 0',
        description: manage,
        operationId: 'deleteGalleryImage',
        params: GalleryImageParams,
        security,
        response: { 200: ref(Message), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      await galleries.remove(requireActor(request), request.params.resourceId, request.params.imageId);
      return { message: 'Gallery image deleted' };
    },
  );
}
