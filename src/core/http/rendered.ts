// The one ETag of the API (weak, SHA-1 of the body in base64url) and bodies rendered once and kept with it.
// The etag plugin (app.ts) computes it per response; the page and object caches compute it once per rendering
// and send it with the kept body.
import { hash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { encodedKeptBody } from './kept-encodings.js';
import type { EncodedBodies } from './kept-encodings.js';

/** One-shot crypto.hash avoids building a Hash object per response. */
export const etagHash = (payload: string | Buffer): string => hash('sha1', payload, 'base64url');

export const weakEtag = (body: string): string => `W/"${etagHash(body)}"`;

/** A body rendered once and kept with its ETag (page-cache.ts, object-cache.ts). */
export interface RenderedBody {
  body: string;
  etag: string;
  /** Its br/gzip forms, encoded on first request for each (kept-encodings.ts). */
  encoded?: EncodedBodies;
}

/** Renders a route's answer (or the promise of one) with the route's own serializer, as Fastify would. */
export async function renderWith(reply: FastifyReply, answer: unknown): Promise<string> {
  return String(reply.serialize(await answer));
}

/**
 * Sends a kept body. It was serialized by the route's serializer when it was rendered: with a JSON content type
 * Fastify sends the string as is, and the etag plugin uses the ETag header already set instead of hashing again.
 */
export function sendRendered(reply: FastifyReply, rendered: RenderedBody): FastifyReply {
  reply.type('application/json; charset=utf-8').header('etag', rendered.etag);
  const encoded = encodedKeptBody(reply, rendered.body, (rendered.encoded ??= {}));
  return reply.send(encoded ?? rendered.body);
}
