// Input the API refuses before any route sees it, decided once for both dialects:
// - NUL characters anywhere in text (path, query, JSON bodies, multipart fields). PostgreSQL cannot store them
//   (`invalid byte sequence for encoding "UTF8": 0x00` was a 500) and no legitimate name, slug or bio has one,
//   so they are a 400 on SQLite too rather than stored on one dialect and refused on the other.
// - JSON nested deeper than MAX_JSON_DEPTH. JSON.parse copes with any depth, but every recursive walk after it
//   (trimming, validation, serialization) does not: 5,000 levels overflowed the stack, a 500.
// Both are checked in one iterative pass over the parsed body, inside the JSON parser, so nothing recursive ever
// sees an unchecked body.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from './errors.js';

/** Deepest JSON nesting accepted; the API's own bodies are at most 3 levels deep. */
export const MAX_JSON_DEPTH = 64;

const NUL = '\u0000';
const ENCODED_NUL = '%00';

const nulError = (where: string) =>
  badRequest(`${where} must not contain a NUL character`, {
    fields: { [where]: 'contains a NUL character' },
  });

/** Throws the one 400 for a NUL in a text value; `where` names the field, e.g. `body.name`. */
export function refuseNul(value: string, where: string): void {
  if (value.includes(NUL)) throw nulError(where);
}

interface Pending {
  value: object;
  depth: number;
  path: string;
}

/** Throws 400 for a body nested deeper than MAX_JSON_DEPTH or holding a NUL in any key or string value. */
export function inspectJsonBody(body: unknown): void {
  if (typeof body === 'string') return refuseNul(body, 'body');
  if (body === null || typeof body !== 'object') return;
  const stack: Pending[] = [{ value: body, depth: 1, path: 'body' }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next.depth > MAX_JSON_DEPTH) {
      throw badRequest(`body is nested deeper than ${MAX_JSON_DEPTH} levels`, {
        fields: { body: `nesting deeper than ${MAX_JSON_DEPTH} levels` },
      });
    }
    const entries = Array.isArray(next.value)
      ? next.value.map((item, index) => [String(index), item] as const)
      : Object.entries(next.value);
    for (const [key, value] of entries) {
      const path = `${next.path}.${key}`;
      if (key.includes(NUL)) throw nulError(next.path);
      if (typeof value === 'string') refuseNul(value, path);
      else if (value !== null && typeof value === 'object') {
        stack.push({ value: value as object, depth: next.depth + 1, path });
      }
    }
  }
}

/** Names where a raw URL carries an encoded NUL: `path`, or `querystring.<name>`. */
function nulInUrl(url: string): string | undefined {
  const at = url.indexOf(ENCODED_NUL);
  if (at === -1) return undefined;
  const queryStart = url.indexOf('?');
  if (queryStart === -1 || at < queryStart) return 'path';
  const pair = url
    .slice(queryStart + 1)
    .split('&')
    .find((part) => part.includes(ENCODED_NUL));
  const name = pair?.split('=')[0] ?? '';
  return name === '' || name.includes(ENCODED_NUL) ? 'querystring' : `querystring.${name}`;
}

export function registerInputGuards(app: FastifyInstance): void {
  // The stock parser keeps its protections (prototype poisoning refused); the guard runs on its result.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    parseJson(request, body.toString(), (error: Error | null, parsed?: unknown) => {
      if (error !== null) return done(error);
      try {
        inspectJsonBody(parsed);
      } catch (refused) {
        return done(refused as Error);
      }
      done(null, parsed);
    });
  });
  // A NUL can only arrive percent-encoded in a URL (the HTTP parser refuses raw control bytes), so one scan of
  // the raw URL covers every path parameter and query value.
  app.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
    const where = nulInUrl(request.url);
    done(where === undefined ? undefined : nulError(where));
  });
}
