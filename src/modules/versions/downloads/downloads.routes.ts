import type { Readable } from 'node:stream';
import { Type } from 'typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../../../core/http/schemas.js';
import { typed } from '../../../core/http/typed.js';
import { attachmentDisposition } from '../../../core/storage/signed-urls.js';
import { OPTIONAL_AUTH } from '../../resources/resources.schemas.js';
import { VERSION_TAGS } from '../versions.routes.js';
import { VersionFileParams, VersionParams } from '../versions.schemas.js';
import type { DownloadClient, DownloadsService } from './downloads.service.js';

const tags = VERSION_TAGS;
const counting =
  'Counted once per file (the ZIP: per version), client IP (IPv6: its /64) and UTC day, for APPROVED versions ' +
  'only; IP, user agent and, when authenticated, the user are recorded. The public may download APPROVED (and ' +
  'ARCHIVED) versions of APPROVED resources; the owner side, contributors and moderators any version.';
const Redirect = Type.Null({
  description: 'Redirect: `Location` is a signed download URL valid for one hour',
});

const clientOf = (request: FastifyRequest): DownloadClient => ({
  ip: request.ip,
  userAgent: request.headers['user-agent'],
});

export async function downloadsRoutes(
  fastify: FastifyInstance,
  { downloads }: { downloads: DownloadsService },
): Promise<void> {
  const app = typed(fastify);

  app.get(
    '/resources/:resourceId/versions/:versionId/download/:fileId',
    {
      schema: {
        tags,
        summary: 'Download one file: 302 to a signed URL valid for one hour',
        description: `${counting} A file the malware scan found INFECTED is never served: 404, to everyone.`,
        operationId: 'downloadVersionFile',
        params: VersionFileParams,
        security: OPTIONAL_AUTH,
        response: { 302: Redirect, ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { resourceId, versionId, fileId } = request.params;
      const url = await downloads.file(request.actor, clientOf(request), resourceId, versionId, fileId);
      return reply.redirect(url, 302);
    },
  );

  app.get(
    '/resources/:resourceId/versions/:versionId/download',
    {
      schema: {
        tags,
        summary: 'Download a version: 302 to its file when it has one, else a ZIP of all its files',
        description:
          'With several files the answer is a ZIP (`application/zip`, streamed, no Content-Length) named ' +
          `\`{resourceSlug}-{versionNumber}.zip\`. ${counting} A version without files is 404. Files the ` +
          'malware scan found INFECTED are left out (never in the ZIP, never the redirect); none left: 404.',
        operationId: 'downloadVersion',
        params: VersionParams,
        security: OPTIONAL_AUTH,
        produces: ['application/zip'],
        response: {
          // Streamed as is: Fastify does not serialize a stream.
          200: Type.Unsafe<Readable>({ type: 'string', format: 'binary', description: 'The ZIP archive' }),
          302: Redirect,
          ...errors(400, 401, 404),
        },
      },
    },
    async (request, reply) => {
      const { resourceId, versionId } = request.params;
      const result = await downloads.version(request.actor, clientOf(request), resourceId, versionId);
      if (result.kind === 'redirect') return reply.redirect(result.url, 302);
      reply.header('content-type', 'application/zip');
      reply.header('content-disposition', attachmentDisposition(result.fileName));
      reply.header('cache-control', 'private, no-store');
      return reply.send(result.stream);
    },
  );
}
