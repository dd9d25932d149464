import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { requireActor, requireUser } from '../../../core/auth/authenticate.js';
import { readStreamedUpload } from '../../../core/http/multipart.js';
import { SECURED } from '../../../core/http/openapi.js';
import { multipartForm } from '../../../core/http/openapi-multipart.js';
import { uploadLimit } from '../../../core/http/rate-limits.js';
import { errors, Message, ref } from '../../../core/http/schemas.js';
import { typed } from '../../../core/http/typed.js';
import { VERSION_TAGS } from '../versions.routes.js';
import {
  MAX_FILES_PER_VERSION,
  SetPrimaryFileBody,
  Version,
  VersionFile,
  VersionFileParams,
  VersionParams,
} from '../versions.schemas.js';
import type { VersionFilesService } from './version-files.service.js';

const tags = VERSION_TAGS;
const security = SECURED;
const manage = 'Owner side or contributor (moderators only if they also are).';

export async function versionFilesRoutes(
  fastify: FastifyInstance,
  { files, maxFileBytes }: { files: VersionFilesService; maxFileBytes: number },
): Promise<void> {
  const app = typed(fastify);
  const maxMiB = Math.round(maxFileBytes / (1024 * 1024));

  app.post(
    '/resources/:resourceId/versions/:versionId/files',
    {
      preHandler: requireUser,
      config: uploadLimit,
      schema: {
        tags,
        summary: 'Upload a file to a DRAFT or REJECTED version (else 409); the first file becomes primary',
        description:
          `${manage} multipart/form-data: \`file\` (required; any kind, at most ${maxMiB} MiB, 413 beyond and ` +
          'nothing is stored) and `displayName` (optional, at most 100 characters; best sent before the file). ' +
          'The file is streamed to storage while its SHA-256 and SHA-1 are computed; `fileType` is detected ' +
          `from the magic bytes, then the extension. At most ${MAX_FILES_PER_VERSION} files per version ` +
          '(409 LIMIT_REACHED).',
        operationId: 'uploadVersionFile',
        ...multipartForm({
          file: 'file',
          fileDescription: `Any kind of file, at most ${maxMiB} MiB`,
          fields: { displayName: Type.String({ maxLength: 100, description: 'Best sent before the file' }) },
        }),
        params: VersionParams,
        security,
        response: { 201: ref(VersionFile), ...errors(400, 401, 403, 404, 409, 413) },
      },
    },
    async (request, reply) => {
      const { resourceId, versionId } = request.params;
      const file = await files.upload(requireActor(request), resourceId, versionId, async (store) => {
        const upload = await readStreamedUpload(request, 'file', maxFileBytes, (stream, info) =>
          store(stream, info.fileName),
        );
        return { stored: upload.result, fileName: upload.fileName, fields: upload.fields };
      });
      return reply.status(201).send(file);
    },
  );

  app.delete(
    '/resources/:resourceId/versions/:versionId/files/:fileId',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Delete a file; a deleted primary file hands over to the oldest other file',
        description:
          `${manage} Not in ARCHIVED versions (409 INVALID_STATUS_TRANSITION); the last file of a PENDING or ` +
          'APPROVED version stays (409 LAST_FILE).',
        operationId: 'deleteVersionFile',
        params: VersionFileParams,
        security,
        response: { 200: ref(Message), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { resourceId, versionId, fileId } = request.params;
      await files.remove(requireActor(request), resourceId, versionId, fileId);
      return { message: 'File deleted' };
    },
  );

  app.patch(
    '/resources/:resourceId/versions/:versionId/files/primary',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Make a file the primary file of its version (every status but ARCHIVED, else 409)',
        description: manage,
        operationId: 'setPrimaryVersionFile',
        params: VersionParams,
        body: SetPrimaryFileBody,
        security,
        response: { 200: ref(Version), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      files.setPrimary(
        requireActor(request),
        request.params.resourceId,
        request.params.versionId,
        request.body.fileId,
      ),
  );
}
