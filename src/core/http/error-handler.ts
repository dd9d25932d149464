// The one renderer of errors: { statusCode, error, message, code, details? } for every failure,
// validation errors and unknown routes included. 5xx bodies never carry internals.
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode } from './error-codes.js';
import { AppError } from './errors.js';
import { allowedMethods } from './conventions/method-not-allowed.js';
import {
  CONFLICT_RETRY_AFTER_SECONDS,
  DATABASE_RETRY_AFTER_SECONDS,
  isDatabaseUnavailable,
  isTransactionConflict,
} from '../db/unavailable.js';

export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  code: ErrorCode;
  details?: Record<string, unknown>;
  /** Same as the x-request-id header; set when the body is sent (conventions/request-id.ts). */
  requestId?: string;
}

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'INVALID_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  408: 'REQUEST_TIMEOUT',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  431: 'HEADERS_TOO_LARGE',
  500: 'INTERNAL_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

export function errorBody(
  statusCode: number,
  message: string,
  code?: ErrorCode,
  details?: Record<string, unknown>,
): ErrorBody {
  const body: ErrorBody = {
    statusCode,
    error: STATUS_CODES[statusCode] ?? 'Error',
    message,
    code: code ?? CODE_BY_STATUS[statusCode] ?? (statusCode >= 500 ? 'INTERNAL_ERROR' : 'INVALID_REQUEST'),
  };
  if (details !== undefined) body.details = details;
  return body;
}

interface ValidationIssue {
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** Turns Ajv issues into { fields: { "body.username": "must match pattern …" } }. */
function validationDetails(error: FastifyError): Record<string, unknown> {
  const fields: Record<string, string> = {};
  const issues = (error.validation ?? []) as ValidationIssue[];
  for (const issue of issues) {
    let path = (issue.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
    const missing = issue.params?.['missingProperty'];
    if (typeof missing === 'string') path = path ? `${path}.${missing}` : missing;
    const key = [error.validationContext, path].filter(Boolean).join('.');
    fields[key || String(error.validationContext ?? 'request')] ??= issue.message ?? 'is invalid';
  }
  return { fields };
}

function fromFastifyError(error: FastifyError): ErrorBody {
  if (error.validation) {
    const first = Object.entries(validationDetails(error)['fields'] as Record<string, string>)[0];
    const message = first ? `${first[0]} ${first[1]}` : 'Invalid request';
    return errorBody(400, message, 'INVALID_REQUEST', validationDetails(error));
  }
  const status = error.statusCode ?? 500;
  if (status >= 500) return errorBody(500, 'Internal server error');
  switch (error.code) {
    case 'FST_REQ_FILE_TOO_LARGE':
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return errorBody(413, error.message, 'PAYLOAD_TOO_LARGE');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errorBody(415, error.message, 'UNSUPPORTED_MEDIA_TYPE');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return errorBody(400, error.message, 'INVALID_REQUEST');
    default:
      return errorBody(status, error.message);
  }
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) => {
    // The client went away while its body was arriving (Node's "aborted", ECONNRESET): not our failure, and not the
    // database's either, whatever the code says. Nobody is left to answer; the status only reaches logs and metrics.
    if (request.raw.socket?.destroyed === true) {
      request.log.info(
        { reason: error.message },
        'client closed the connection before the request was answered',
      );
      return reply
        .status(400)
        .send(errorBody(400, 'The client closed the connection', 'CLIENT_CLOSED_REQUEST'));
    }
    const databaseAway = !(error instanceof AppError) && isDatabaseUnavailable(error);
    const conflict = !(error instanceof AppError) && !databaseAway && isTransactionConflict(error);
    // A database outage, or a transaction the database rolled back for a concurrent one, is not the request's
    // fault: 503 with Retry-After, so clients try again.
    if (databaseAway) reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
    if (conflict) reply.header('retry-after', String(CONFLICT_RETRY_AFTER_SECONDS));
    const body = databaseAway
      ? errorBody(503, 'The database is unavailable; retry shortly', 'SERVICE_UNAVAILABLE')
      : conflict
        ? errorBody(
            503,
            'The request collided with a concurrent change and was undone; retry it',
            'SERVICE_UNAVAILABLE',
          )
        : error instanceof AppError
          ? errorBody(error.statusCode, error.message, error.code, error.details)
          : fromFastifyError(error as FastifyError);
    if (body.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    if (body.statusCode === 429 && !reply.hasHeader('retry-after')) reply.header('retry-after', '60');
    body.requestId = request.id;
    return reply.status(body.statusCode).send(body);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    // A known path under another method is a 405 with Allow (conventions/method-not-allowed.ts).
    const allowed = allowedMethods(request);
    if (allowed.length > 0) {
      const message = `${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`;
      const body = errorBody(405, message, 'METHOD_NOT_ALLOWED');
      return reply
        .status(405)
        .header('allow', allowed.join(', '))
        .send({ ...body, requestId: request.id });
    }
    const body = errorBody(404, `Route ${request.method} ${path} not found`, 'NOT_FOUND');
    return reply.status(404).send({ ...body, requestId: request.id });
  });
}
