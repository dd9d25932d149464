import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { requireActor, requireUser } from '../../core/auth/authenticate.js';
import { readBufferedUpload } from '../../core/http/multipart.js';
import type { ObjectCache } from '../../core/http/object-cache.js';
import { SECURED } from '../../core/http/openapi.js';
import { multipartForm } from '../../core/http/openapi-multipart.js';
import { uploadLimit } from '../../core/http/rate-limits.js';
import { errors, ref } from '../../core/http/schemas.js';
import { typed } from '../../core/http/typed.js';
import { IMAGE_LIMITS } from '../../core/images.js';
import type { ResourceDeletion } from './delete-resource.js';
import {
  CreateResourceBody,
  OPTIONAL_AUTH,
  Resource,
  ResourceIdParams,
  ResourceSlugParams,
  UpdateResourceBody,
} from './resources.schemas.js';
import type { ResourceImageKind, ResourcesService } from './resources.service.js';

const tags = ['resources'];
const security = SECURED;
const hiddenNote =
  'A resource that is not APPROVED is visible only to its owner side, contributors and moderators; to anyone ' +
  'else it does not exist (404).';

const IMAGE_ROUTES: Array<{ kind: ResourceImageKind; name: 'Icon' | 'Banner'; box: string }> = [
  { kind: 'icon', name: 'Icon', box: '512x512' },
  { kind: 'banner', name: 'Banner', box: '1920x1080' },
];

export async function resourcesRoutes(
  fastify: FastifyInstance,
  deps: { resources: ResourcesService; deletion: ResourceDeletion; objects: ObjectCache },
): Promise<void> {
  const { resources, deletion, objects } = deps;
  const app = typed(fastify);

  app.post(
    '/resources',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Publish a resource; it starts PENDING until a moderator approves it',
        description:
          'ownerType defaults to USER and ownerId to you. For ownerType TEAM, ownerId is the team and you need ' +
          'the team role ADMIN or OWNER (403). The slug is unique (409 SLUG_TAKEN). Categories must belong to ' +
          'the resource type; unknown category, tag or game version IDs are 400.',
        operationId: 'createResource',
        body: CreateResourceBody,
        security,
        response: { 201: ref(Resource), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await resources.create(requireActor(request), request.body)),
  );

  app.get(
    '/resources/slug/:slug',
    {
      schema: {
        tags,
        summary: 'A resource by slug',
        description: hiddenNote,
        operationId: 'getResourceBySlug',
        params: ResourceSlugParams,
        security: OPTIONAL_AUTH,
        response: { 200: ref(Resource), ...errors(400, 404) },
      },
    },
    async (request, reply) => {
      const { slug } = request.params;
      // Anonymous callers all see the same (APPROVED) resource: kept until the database changes.
      if (request.actor !== null) return resources.getBySlug(request.actor, slug);
      return objects.send(reply, `resource-by-slug:${slug}`, () => resources.getBySlug(null, slug));
    },
  );

  app.get(
    '/resources/:id',
    {
      schema: {
        tags,
        summary: 'A resource by ID',
        description: hiddenNote,
        operationId: 'getResource',
        params: ResourceIdParams,
        security: OPTIONAL_AUTH,
        response: { 200: ref(Resource), ...errors(400, 404) },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      if (request.actor !== null) return resources.getById(request.actor, id);
      return objects.send(reply, `resource:${id}`, () => resources.getById(null, id));
    },
  );

  app.patch(
    '/resources/:id',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Edit a resource (owner side or contributor); a REJECTED resource goes back to PENDING',
        description:
          'The slug, type and owner cannot be changed here. A list of categoryIds, tagIds or gameVersionIds ' +
          'replaces the current one; an absent list is left as it is. Saving a description makes the ' +
          'description images whose URLs it contains permanent.',
        operationId: 'updateResource',
        params: ResourceIdParams,
        body: UpdateResourceBody,
        security,
        response: { 200: ref(Resource), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => resources.update(requireActor(request), request.params.id, request.body),
  );

  app.delete(
    '/resources/:id',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Delete a resource with everything under it (owner only)',
        description:
          "Only the user owner, or the owning team's OWNER or ADMIN. Removes its versions, files, images, " +
          'links, contributors, likes, favorites and moderation history, and the stored objects.',
        operationId: 'deleteResource',
        params: ResourceIdParams,
        security,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await deletion.remove(requireActor(request), request.params.id);
      return reply.status(204).send(null);
    },
  );

  for (const { kind, name, box } of IMAGE_ROUTES) {
    app.post(
      `/resources/:id/${kind}`,
      {
        preHandler: requireUser,
        config: uploadLimit,
        schema: {
          tags,
          summary: `Upload the resource ${kind} (owner side or contributor)`,
          description:
            `multipart/form-data with one file field \`${kind}\` (PNG, JPG or WEBP; at most 5 MiB and 25 ` +
            `megapixels), scaled to fit ${box}. The image is re-encoded and its metadata stripped.`,
          operationId: `uploadResource${name}`,
          ...multipartForm({ file: kind, fileDescription: 'PNG, JPG or WEBP; at most 5 MiB' }),
          params: ResourceIdParams,
          security,
          response: { 200: ref(Resource), ...errors(400, 401, 403, 404, 409, 413, 415) },
        },
      },
      async (request) =>
        resources.setImage(requireActor(request), request.params.id, kind, async () => {
          return (await readBufferedUpload(request, kind, IMAGE_LIMITS.maxBytes)).data;
        }),
    );

    app.delete(
      `/resources/:id/${kind}`,
      {
        preHandler: requireUser,
        schema: {
          tags,
          summary: `Remove the resource ${kind} (owner side or contributor)`,
          description: `Removes the resource's ${kind} image. The resource's owner side or a contributor may.`,
          operationId: `deleteResource${name}`,
          params: ResourceIdParams,
          security,
          response: { 200: ref(Resource), ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (request) => resources.removeImage(requireActor(request), request.params.id, kind),
    );
  }
}
