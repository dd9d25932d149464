import type { FastifyInstance } from 'fastify';
import { requireActor, requireRole, requireUser } from '../../../core/auth/authenticate.js';
import { SECURED } from '../../../core/http/openapi.js';
import { errors, ref } from '../../../core/http/schemas.js';
import { typed } from '../../../core/http/typed.js';
import { RejectVersionBody, SubmitVersionBody, Version, VersionParams } from '../versions.schemas.js';
import { VERSION_TAGS } from '../versions.routes.js';
import type { VersionActionsService } from './version-actions.service.js';

const tags = VERSION_TAGS;
const security = SECURED;
const ownerSide = 'Owner side or contributor (moderators only if they also are).';
const moderatorSide =
  'MODERATOR or higher; not on a resource where the moderator is on the owner side or a contributor (403).';
const statusErrors = errors(400, 401, 403, 404, 409);

export async function versionActionsRoutes(
  fastify: FastifyInstance,
  { actions }: { actions: VersionActionsService },
): Promise<void> {
  const app = typed(fastify);

  app.post(
    '/resources/:resourceId/versions/:versionId/submit',
    {
      preHandler: requireUser,
      // The body is optional: a bodiless submit validates as {}.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags,
        summary: 'Submit a DRAFT version for review (→ PENDING); needs at least one file',
        description:
          `${ownerSide} Another status: 409 INVALID_STATUS_TRANSITION; no files: 409 NO_FILES; a file the ` +
          'malware scan found INFECTED: 409 FILE_INFECTED (details.fileIds). A trusted ' +
          "creator's submission whose files are all clean is approved in the same request (→ APPROVED, history " +
          'APPROVE with moderator null and automatic true).',
        operationId: 'submitVersion',
        params: VersionParams,
        body: SubmitVersionBody,
        security,
        response: { 200: ref(Version), ...statusErrors },
      },
    },
    async (request) =>
      actions.submit(
        requireActor(request),
        request.params.resourceId,
        request.params.versionId,
        request.body.submissionNote,
      ),
  );

  app.post(
    '/resources/:resourceId/versions/:versionId/resubmit',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Resubmit a REJECTED version (→ PENDING); needs at least one file',
        description:
          `${ownerSide} Another status: 409 INVALID_STATUS_TRANSITION; no files: 409 NO_FILES; an INFECTED ` +
          'file: 409 FILE_INFECTED.',
        operationId: 'resubmitVersion',
        params: VersionParams,
        security,
        response: { 200: ref(Version), ...statusErrors },
      },
    },
    async (request) =>
      actions.resubmit(requireActor(request), request.params.resourceId, request.params.versionId),
  );

  app.post(
    '/resources/:resourceId/versions/:versionId/approve',
    {
      preHandler: requireRole('MODERATOR'),
      schema: {
        tags,
        summary: 'Approve a PENDING version (→ APPROVED, publicly available)',
        description:
          `${moderatorSide} The version becomes latest when the resource has none. Another status: 409 ` +
          'INVALID_STATUS_TRANSITION; a file the malware scan found INFECTED: 409 FILE_INFECTED.',
        operationId: 'approveVersion',
        params: VersionParams,
        security,
        response: { 200: ref(Version), ...statusErrors },
      },
    },
    async (request) =>
      actions.approve(requireActor(request), request.params.resourceId, request.params.versionId),
  );

  app.post(
    '/resources/:resourceId/versions/:versionId/reject',
    {
      preHandler: requireRole('MODERATOR'),
      schema: {
        tags,
        summary: 'Reject a PENDING version with a reason (→ REJECTED; can be resubmitted)',
        description: `${moderatorSide} Without a reason: 400. Another status: 409 INVALID_STATUS_TRANSITION.`,
        operationId: 'rejectVersion',
        params: VersionParams,
        body: RejectVersionBody,
        security,
        response: { 200: ref(Version), ...statusErrors },
      },
    },
    async (request) =>
      actions.reject(
        requireActor(request),
        request.params.resourceId,
        request.params.versionId,
        request.body.reason,
      ),
  );

  app.post(
    '/resources/:resourceId/versions/:versionId/archive',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Archive an APPROVED version (→ ARCHIVED: read-only, still downloadable, no longer latest)',
        description: `${ownerSide} Another status: 409 INVALID_STATUS_TRANSITION.`,
        operationId: 'archiveVersion',
        params: VersionParams,
        security,
        response: { 200: ref(Version), ...statusErrors },
      },
    },
    async (request) =>
      actions.archive(requireActor(request), request.params.resourceId, request.params.versionId),
  );
}
