// Server logo and banner: upload (re-encoded, metadata stripped) and removal, by the owner side or team members.
import type { FastifyInstance } from 'fastify';
import { requireActor, requireUser } from '../../core/auth/authenticate.js';
import { readBufferedUpload } from '../../core/http/multipart.js';
import { SECURED } from '../../core/http/openapi.js';
import { multipartForm } from '../../core/http/openapi-multipart.js';
import { uploadLimit } from '../../core/http/rate-limits.js';
import { errors, ref } from '../../core/http/schemas.js';
import { typed } from '../../core/http/typed.js';
import { IMAGE_LIMITS } from '../../core/images.js';
import { Server, ServerIdParams } from './servers.schemas.js';
import type { ServerImageKind, ServersService } from './servers.service.js';

const IMAGE_ROUTES: Array<{ kind: ServerImageKind; name: 'Logo' | 'Banner'; box: string }> = [
  { kind: 'logo', name: 'Logo', box: '512x512' },
  { kind: 'banner', name: 'Banner', box: '1920x1080' },
];

export async function serverImagesRoutes(
  fastify: FastifyInstance,
  { servers }: { servers: ServersService },
): Promise<void> {
  const app = typed(fastify);

  for (const { kind, name, box } of IMAGE_ROUTES) {
    app.post(
      `/servers/:id/${kind}`,
      {
        preHandler: requireUser,
        config: uploadLimit,
        schema: {
          tags: ['servers'],
          summary: `Upload the server ${kind} (owner or team member)`,
          description:
            `multipart/form-data with one file field \`${kind}\` (PNG, JPG or WEBP; at most 5 MiB and 25 ` +
            `megapixels), scaled to fit ${box}. The image is re-encoded and its metadata stripped.`,
          operationId: `uploadServer${name}`,
          ...multipartForm({ file: kind, fileDescription: 'PNG, JPG or WEBP; at most 5 MiB' }),
          params: ServerIdParams,
          security: SECURED,
          response: { 200: ref(Server), ...errors(400, 401, 403, 404, 409, 413, 415) },
        },
      },
      async (request) =>
        servers.setImage(requireActor(request), request.params.id, kind, async () => {
          return (await readBufferedUpload(request, kind, IMAGE_LIMITS.maxBytes)).data;
        }),
    );

    app.delete(
      `/servers/:id/${kind}`,
      {
        preHandler: requireUser,
        schema: {
          tags: ['servers'],
          summary: `Remove the server ${kind} (owner or team member)`,
          description: `Removes the server's ${kind} image. The server's owner or a member of its team may.`,
          operationId: `deleteServer${name}`,
          params: ServerIdParams,
          security: SECURED,
          response: { 200: ref(Server), ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (request) => servers.removeImage(requireActor(request), request.params.id, kind),
    );
  }
}
