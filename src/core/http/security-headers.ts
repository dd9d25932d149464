// Security headers and the request id on every response (DESIGN §11). helmet decides the headers and their values; since they do
// not vary per request (no CSP nonces: a JSON API sends no CSP, /docs and /cdn send their own), they are
// computed once at start and set in one step. Running helmet's middleware per request cost about 6 µs of CPU
// per request, a fifth of a profile read.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';
import type { HelmetOptions } from 'helmet';

export function computeSecurityHeaders(options: Readonly<HelmetOptions>): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader(name: string, value: unknown) {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  helmet(options)({} as IncomingMessage, response as unknown as ServerResponse, () => {});
  return headers;
}

let apiHeaders: Record<string, string> | undefined;

/** The headers every API response carries, also used by the answers sent before routing (framework-errors.ts). */
export function securityHeaders(): Readonly<Record<string, string>> {
  apiHeaders ??= computeSecurityHeaders({
    // Images under /cdn are embedded by other origins (launchers, web front ends).
    crossOriginResourcePolicy: { policy: 'cross-origin' },
    contentSecurityPolicy: false,
  });
  return apiHeaders;
}

export function registerSecurityHeaders(app: FastifyInstance): void {
  const headers = securityHeaders();
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(headers);
    reply.header('x-request-id', request.id);
    done();
  });
}

/**
 * A client's x-request-id is kept only when it is short and plain: it is echoed in a header and written to every
 * log line, so a 3,000-character or control-character id is replaced by one of ours.
 */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Request ids: a client-sent x-request-id when CLIENT_REQUEST_ID accepts it, otherwise a random per-process
 * prefix and a counter — unique across processes, and far cheaper than a UUID per request.
 */
export function requestIds(): (request?: IncomingMessage) => string {
  const prefix = randomBytes(6).toString('base64url');
  let sequence = 0;
  return (request) => {
    const sent = request?.headers['x-request-id'];
    if (typeof sent === 'string' && CLIENT_REQUEST_ID.test(sent)) return sent;
    return `${prefix}-${(sequence++).toString(36)}`;
  };
}
