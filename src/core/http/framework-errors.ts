// The answers sent before a request reaches a route — a URL the router cannot decode, a path segment past
// maxParamLength, and HTTP the parser refuses (an unknown method such as TRACK, a malformed request line, headers
// too large). Fastify and Node answer those with their own bodies (`FST_ERR_BAD_URL`, a bare "400 Bad Request")
// and without the security headers or a request id; these handlers give them the one error shape instead.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from './error-handler.js';
import type { ErrorBody } from './error-handler.js';
import { requestIds, securityHeaders } from './security-headers.js';

/**
 * Longest path parameter the router accepts: ids and slugs are at most 64 characters, a SHA-512 in hex
 * (GET /version-files/:hash) 128.
 */
export const MAX_PARAM_LENGTH = 128;

function bodyForRoutingError(error: FastifyError): ErrorBody {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return errorBody(400, 'The URL is not valid percent-encoded UTF-8', 'INVALID_REQUEST');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return errorBody(414, `A path segment is longer than ${MAX_PARAM_LENGTH} characters`, 'URI_TOO_LONG');
    default:
      return errorBody(500, 'Internal server error');
  }
}

/** Fastify's `frameworkErrors` option: routing failures, answered in our shape with our headers. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const body = bodyForRoutingError(error);
  if (body.statusCode >= 500) request.log.error({ err: error }, 'request failed');
  void reply
    .headers(securityHeaders())
    .header('x-request-id', request.id)
    .code(body.statusCode)
    .send({ ...body, requestId: request.id });
}

interface ClientError extends Error {
  code?: string;
}

function bodyForClientError(error: ClientError): ErrorBody {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return errorBody(408, 'The request was not received in time');
    case 'HPE_HEADER_OVERFLOW':
      return errorBody(431, 'The request headers are too large');
    case 'HPE_INVALID_METHOD':
      return errorBody(400, 'Unknown HTTP method', 'INVALID_REQUEST');
    default:
      return errorBody(400, 'Malformed HTTP request', 'INVALID_REQUEST');
  }
}

/**
 * Fastify's `clientErrorHandler` option: the parser refused the bytes, so there is no request to reply to and
 * the response is written to the socket directly, which is then closed (its framing can no longer be trusted).
 */
export function clientErrorHandler(): (error: ClientError, socket: Socket) => void {
  const nextId = requestIds();
  return (error, socket) => {
    // A reset connection has nobody left to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    if (!socket.writable) {
      socket.destroy(error);
      return;
    }
    const requestId = nextId();
    const answer = bodyForClientError(error);
    const body = JSON.stringify({ ...answer, requestId });
    const headers: Record<string, string | number> = {
      ...securityHeaders(),
      'x-request-id': requestId,
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    };
    const head = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    const status = `${answer.statusCode} ${STATUS_CODES[answer.statusCode]}`;
    // Closed once written: a client that never closes its side must not keep the socket.
    socket.end(`HTTP/1.1 ${status}\r\n${head}\r\n${body}`, () => socket.destroy());
  };
}
