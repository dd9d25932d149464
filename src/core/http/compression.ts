// Response compression (issue 11): JSON and text bodies of 1 KB or more are sent br- or gzip-encoded when the
// client asks for it (Accept-Encoding), with `Vary: Accept-Encoding`. Stored objects under /cdn never are:
// images and archives are compressed already, and a Range answer must count bytes of the stored object, which
// an encoded body would break. The weak ETag is computed on the identity body before encoding (the etag
// plugin's onSend runs first), so a validator stays the same across encodings and If-None-Match keeps working
// whichever encoding the client got.
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/** "Over 1 KB": smaller bodies fit one packet anyway, and encoding them costs more than it saves. */
export const COMPRESSION_THRESHOLD = 1024;

/** JSON (and +json), Atom feeds, text, and the /docs page's scripts and styles; never binary types. */
const COMPRESSIBLE =
  /^(?:application\/(?:[\w.-]+\+)?json|application\/atom\+xml|text\/(?!event-stream)|application\/javascript)(?:;|$)/;

/** Routes that serve stored objects byte for byte (ranges, already-compressed media). */
const UNCOMPRESSED_PREFIXES = ['/cdn/'];

export async function registerCompression(app: FastifyInstance): Promise<void> {
  // Runs before the compress plugin's own onRoute hook (registered just below), which reads `compress`.
  app.addHook('onRoute', (route) => {
    if (UNCOMPRESSED_PREFIXES.some((prefix) => route.url.startsWith(prefix))) route.compress = false;
  });
  await app.register(compress, {
    threshold: COMPRESSION_THRESHOLD,
    encodings: ['br', 'gzip'],
    customTypes: COMPRESSIBLE,
    // Request bodies are not decoded: no client needs it, and it would let a small upload inflate past the
    // body limits before they are checked.
    globalDecompression: false,
  });
}
