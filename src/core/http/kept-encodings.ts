// Kept answers (page-cache.ts, object-cache.ts) are sent to many clients byte for byte, so they are compressed once
// per rendering and the encoded bytes kept beside the body. Through @fastify/compress's stream path a 22 KB list
// page cost 1.5-2 ms of CPU per request (bench, gzip and br), against a fifth of that to serve it as identity;
// encoded once it costs what identity does. The encodings, levels and threshold are the plugin's, so a client
// sees the same answer either way, and the plugin leaves a reply that already has a Content-Encoding alone.
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { FastifyReply } from 'fastify';
import { COMPRESSION_THRESHOLD } from './compression.js';

export type KeptEncoding = 'br' | 'gzip';

/** The encoded forms of one kept body, filled on first request for each. */
export type EncodedBodies = Partial<Record<KeptEncoding, Buffer>>;

const ENCODERS: Record<KeptEncoding, (body: string) => Buffer> = {
  // Quality 4 is @fastify/compress's own default: 11 would cost tens of ms per rendering.
  br: (body) => brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }),
  gzip: (body) => gzipSync(body),
};

/**
 * The encoding the client prefers among br and gzip (RFC 9110 §12.5.3: q-values, `*`, `x-gzip`; br on a tie, as
 * the plugin decides), or undefined for identity.
 */
export function preferredEncoding(acceptEncoding: string | undefined): KeptEncoding | undefined {
  if (acceptEncoding === undefined || acceptEncoding === '') return undefined;
  const quality: Record<KeptEncoding, number> = { br: -1, gzip: -1 };
  let wildcard = -1;
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [token = '', ...parameters] = part.split(';').map((piece) => piece.trim());
    const qParameter = parameters.find((parameter) => parameter.startsWith('q='));
    const q = qParameter === undefined ? 1 : Number(qParameter.slice(2));
    if (!Number.isFinite(q)) continue;
    if (token === 'br') quality.br = q;
    else if (token === 'gzip' || token === 'x-gzip') quality.gzip = Math.max(quality.gzip, q);
    else if (token === '*') wildcard = q;
  }
  const br = quality.br >= 0 ? quality.br : wildcard;
  const gzip = quality.gzip >= 0 ? quality.gzip : wildcard;
  if (br <= 0 && gzip <= 0) return undefined;
  return br >= gzip ? 'br' : 'gzip';
}

/**
 * Sets the reply up to send `body` encoded, from `kept` (filled here on first use), when compression is on for
 * the route, the body is large enough and the client asks for an encoding; returns the bytes to send, or
 * undefined to send `body` as is.
 */
export function encodedKeptBody(reply: FastifyReply, body: string, kept: EncodedBodies): Buffer | undefined {
  // @fastify/compress sets reply.compress on the routes it compresses (off with COMPRESSION=off or per route).
  if (typeof (reply as { compress?: unknown }).compress !== 'function') return undefined;
  if (body.length < COMPRESSION_THRESHOLD) return undefined;
  const encoding = preferredEncoding(reply.request.headers['accept-encoding']);
  if (encoding === undefined) return undefined;
  const encoded = (kept[encoding] ??= ENCODERS[encoding](body));
  reply.header('content-encoding', encoding);
  reply.header('vary', 'accept-encoding');
  return encoded;
}
