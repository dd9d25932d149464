// Cache-Control and Vary for answers whose route did not choose its own (issue 12 conventions):
// - a GET/HEAD answered 2xx/304 to a caller without credentials: `public, max-age=5, must-revalidate` — short
//   (the list pages are cached 5 s in-process anyway), then revalidated with the ETag every answer carries;
// - a request that carries credentials (Authorization, x-api-key): `private, no-store`, whatever the route;
// - everything else (writes, errors): `no-store`.
// `Vary: Authorization, X-Api-Key` goes on every answer except immutable (content-addressed) ones, so a shared
// cache never hands one caller's answer to another. Routes that set Cache-Control themselves keep it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export const PUBLIC_ANSWER = 'public, max-age=5, must-revalidate';
export const PERSONAL_ANSWER = 'private, no-store';
const CREDENTIAL_HEADERS = ['Authorization', 'X-Api-Key'];

function hasCredentials(request: FastifyRequest): boolean {
  const { headers } = request;
  return headers.authorization !== undefined || headers['x-api-key'] !== undefined;
}

/** Adds names to a Vary header without repeating any (case-insensitive). */
export function mergeVary(current: unknown, names: string[]): string {
  const present = String(current ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (present.includes('*')) return '*';
  const lower = new Set(present.map((name) => name.toLowerCase()));
  return [...present, ...names.filter((name) => !lower.has(name.toLowerCase()))].join(', ');
}

function chooseCacheControl(request: FastifyRequest, reply: FastifyReply): string {
  const chosen = reply.getHeader('cache-control');
  const credentialed = hasCredentials(request);
  // A route that sets its own value has decided who may share the answer (feeds and public stats are the same
  // document for every caller; server stats choose `private` for a server the public cannot see): kept.
  if (typeof chosen === 'string') return chosen;
  const read = request.method === 'GET' || request.method === 'HEAD';
  const fresh = (reply.statusCode >= 200 && reply.statusCode < 300) || reply.statusCode === 304;
  if (!read || !fresh) return 'no-store';
  return credentialed ? PERSONAL_ANSWER : PUBLIC_ANSWER;
}

export function registerCacheControl(app: FastifyInstance): void {
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const cacheControl = chooseCacheControl(request, reply);
    reply.header('cache-control', cacheControl);
    if (!/\bimmutable\b/.test(cacheControl)) {
      reply.header('vary', mergeVary(reply.getHeader('vary'), CREDENTIAL_HEADERS));
    }
    return payload;
  });
}
