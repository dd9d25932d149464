// GET/HEAD /cdn/<key>: serves stored objects. Keys under files/ (version files) need a valid signed link;
// everything else (content-addressed images, default assets) is public and cached forever.
// Local signed URLs and publicUrl() both map a key to `${cdnUrl}/${key}`, so the wildcard is the key.
import type {} from '@fastify/swagger';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { Readable } from 'node:stream';
import type { Clock } from '../clock.js';
import { AppError, forbidden, notFound } from '../http/errors.js';
import { isPrivateKey, isValidKey } from './keys.js';
import { attachmentDisposition, secondsRemaining, verifySignature } from './signed-urls.js';
import type { ByteRange, ObjectInfo, Storage } from './storage.js';

export interface CdnRoutesOptions {
  storage: Storage;
  /** Must be the secret the local storage driver signs with. */
  secret: string;
  clock: Clock;
}

interface CdnQuery {
  expires?: string;
  name?: string;
  signature?: string;
}

const PUBLIC_CACHE = 'public, max-age=31536000, immutable';

/**
 * Resolves a Range header against the object size (RFC 9110 §14). undefined means "send the whole
 * object": no header, a malformed one, or several ranges — a server may ignore Range in those cases,
 * which spares us multipart/byteranges responses.
 */
export function parseRange(
  header: string | undefined,
  size: number,
): ByteRange | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/i.exec(header.trim());
  if (match === null) return undefined;
  const first = match[1] ?? '';
  const last = match[2] ?? '';
  if (first === '' && last === '') return undefined;
  if (first === '') {
    const suffix = Number(last);
    if (!Number.isSafeInteger(suffix)) return undefined;
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Number(last);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end)) return undefined;
  if (last !== '' && end < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end: Math.min(end, size - 1) };
}

function writeHeaders(
  reply: FastifyReply,
  info: ObjectInfo,
  range: ByteRange | undefined,
  access: { cacheControl: string; disposition?: string },
): void {
  reply.header('content-type', info.contentType);
  reply.header('x-content-type-options', 'nosniff');
  // Stored objects are user uploads served from the API origin: never let one run as a page.
  reply.header('content-security-policy', "default-src 'none'; sandbox");
  reply.header('accept-ranges', 'bytes');
  reply.header('cache-control', access.cacheControl);
  if (access.disposition !== undefined) reply.header('content-disposition', access.disposition);
  if (range === undefined) {
    reply.header('content-length', String(info.size));
    reply.status(200);
  } else {
    reply.header('content-length', String(range.end - range.start + 1));
    reply.header('content-range', `bytes ${range.start}-${range.end}/${info.size}`);
    reply.status(206);
  }
}

export const cdnRoutes: FastifyPluginAsync<CdnRoutesOptions> = async (app, { storage, secret, clock }) => {
  const objectNotFound = () => notFound('Object');

  app.get<{ Params: { '*': string }; Querystring: CdnQuery }>(
    '/*',
    {
      schema: {
        tags: ['cdn'],
        summary: 'Download a stored object (images publicly; version files through a signed link)',
        description:
          'Keys under `files/` need the `expires`, `name` and `signature` of a link handed out by the ' +
          'download endpoint. Supports a single byte range (`Range: bytes=a-b`, `a-`, `-n`).',
        operationId: 'getCdnObject',
        hide: false,
        querystring: {
          type: 'object',
          properties: {
            expires: { type: 'string', description: 'Unix time (seconds) the signed link expires at' },
            name: { type: 'string', description: 'File name offered in Content-Disposition' },
            signature: { type: 'string', description: 'Hex HMAC-SHA256 of key, expires and name' },
          },
        },
      },
    },
    async (request, reply) => {
      const key = request.params['*'];
      // Anything outside the key grammar (traversal, empty segments, odd characters) cannot exist.
      if (!isValidKey(key)) throw objectNotFound();

      let access: { cacheControl: string; disposition?: string } = { cacheControl: PUBLIC_CACHE };
      if (isPrivateKey(key)) {
        const { expires, name, signature } = request.query;
        const now = clock.now();
        if (
          expires === undefined ||
          name === undefined ||
          signature === undefined ||
          !verifySignature({ key, expires, name, signature, secret, now })
        ) {
          throw forbidden('Download link is invalid or has expired', 'INVALID_SIGNATURE');
        }
        access = {
          cacheControl: `private, max-age=${secondsRemaining(expires, now)}`,
          disposition: attachmentDisposition(name),
        };
      }

      const rangeHeader = request.headers.range;
      if (request.method !== 'HEAD' && rangeHeader === undefined) {
        // Common path: one storage round trip, the size comes with the stream.
        const object = await storage.get(key);
        if (object === undefined) throw objectNotFound();
        writeHeaders(reply, object, undefined, access);
        return reply.send(object.body);
      }

      const info = await storage.head(key);
      if (info === undefined) throw objectNotFound();
      const range = parseRange(rangeHeader, info.size);
      if (range === 'unsatisfiable') {
        reply.header('content-range', `bytes */${info.size}`);
        throw new AppError(
          416,
          'RANGE_NOT_SATISFIABLE',
          `Requested range is outside the object (${info.size} bytes)`,
        );
      }
      writeHeaders(reply, info, range, access);
      if (request.method === 'HEAD') {
        // An empty stream rather than no payload: Fastify's HEAD handling keeps our Content-Length
        // for streams, but would reset it to 0 for an empty body.
        return reply.send(Readable.from([]));
      }
      const object = await storage.get(key, range);
      if (object === undefined) throw objectNotFound();
      return reply.send(object.body);
    },
  );
};

export default cdnRoutes;
