import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { requireActor, requireUser } from '../../core/auth/authenticate.js';
import { SECURED } from '../../core/http/openapi.js';
import { errors, ref } from '../../core/http/schemas.js';
import { Message } from '../../core/http/schemas.js';
import { typed } from '../../core/http/typed.js';
import { OPTIONAL_AUTH } from '../resources/resources.schemas.js';
import {
  ChangelogBody,
  CreateVersionBody,
  ResourceVersionsParams,
  UpdateVersionBody,
  Version,
  VersionListItem,
  VersionParams,
} from './versions.schemas.js';
import type { VersionsService } from './versions.service.js';

export const VERSION_TAGS = ['versions'];
const tags = VERSION_TAGS;
const security = SECURED;
const visibility =
  'The owner side, contributors and moderators see every version; everyone else sees APPROVED (and ARCHIVED) ' +
  'versions of an APPROVED resource only, and anything else is 404.';
const manage = 'Owner side or contributor (moderators only if they also are); ';

export async function versionsRoutes(
  fastify: FastifyInstance,
  { versions }: { versions: VersionsService },
): Promise<void> {
  const app = typed(fastify);

  app.post(
    '/resources/:resourceId/versions',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Create a version (DRAFT, no files, not latest)',
        description:
          manage +
          'compatibleGameVersionIds needs at least one existing game version (400 otherwise). The version ' +
          'number is unique within the resource (409 VERSION_NUMBER_TAKEN).',
        operationId: 'createVersion',
        params: ResourceVersionsParams,
        body: CreateVersionBody,
        security,
        response: { 201: ref(Version), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await versions.create(requireActor(request), request.params.resourceId, request.body)),
  );

  app.get(
    '/resources/:resourceId/versions',
    {
      schema: {
        tags,
        summary: 'The versions of a resource, newest first',
        description: visibility,
        operationId: 'listVersions',
        params: ResourceVersionsParams,
        security: OPTIONAL_AUTH,
        response: { 200: Type.Array(ref(VersionListItem)), ...errors(400, 401, 404) },
      },
    },
    async (request) => versions.list(request.actor, request.params.resourceId),
  );

  app.get(
    '/resources/:resourceId/versions/:versionId',
    {
      schema: {
        tags,
        summary: 'One version with its files and compatible game versions',
        description: visibility,
        operationId: 'getVersion',
        params: VersionParams,
        security: OPTIONAL_AUTH,
        response: { 200: ref(Version), ...errors(400, 401, 404) },
      },
    },
    async (request) => versions.get(request.actor, request.params.resourceId, request.params.versionId),
  );

  app.patch(
    '/resources/:resourceId/versions/:versionId',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Change the name, channel or compatible game versions (DRAFT or REJECTED only, else 409)',
        description: manage + 'a list given replaces the current one; name null or "" clears it.',
        operationId: 'updateVersion',
        params: VersionParams,
        body: UpdateVersionBody,
        security,
        response: { 200: ref(Version), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      versions.update(
        requireActor(request),
        request.params.resourceId,
        request.params.versionId,
        request.body,
      ),
  );

  app.delete(
    '/resources/:resourceId/versions/:versionId',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Delete a version and its files (DRAFT or REJECTED only, else 409)',
        description: manage + 'PENDING, APPROVED and ARCHIVED versions cannot be deleted.',
        operationId: 'deleteVersion',
        params: VersionParams,
        security,
        response: { 200: ref(Message), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      await versions.remove(requireActor(request), request.params.resourceId, request.params.versionId);
      return { message: 'Version deleted' };
    },
  );

  app.patch(
    '/resources/:resourceId/versions/:versionId/changelog',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Replace the changelog (sanitized HTML; every status but ARCHIVED, else 409)',
        description:
          manage +
          'scripts, styles, event handlers and javascript: URLs are removed; links get rel="noopener noreferrer ' +
          'nofollow". At most 100,000 characters.',
        operationId: 'updateVersionChangelog',
        params: VersionParams,
        body: ChangelogBody,
        security,
        response: { 200: ref(Version), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      versions.setChangelog(
        requireActor(request),
        request.params.resourceId,
        request.params.versionId,
        request.body.changelog,
      ),
  );

  app.patch(
    '/resources/:resourceId/versions/:versionId/set-latest',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Mark an APPROVED version as the latest (the previous latest is unset; else 409)',
        description: manage.replace(/; $/, '.'),
        operationId: 'setLatestVersion',
        params: VersionParams,
        security,
        response: { 200: ref(Version), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      versions.setLatest(requireActor(request), request.params.resourceId, request.params.versionId),
  );
}
