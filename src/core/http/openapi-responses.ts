// Responses every operation can produce, derived from route facts instead of per-route lists (issue 12):
// - public operations say so (`security: []`);
// - error statuses where they can happen: 400 for any input, 401/403 where credentials are read, 404 for any path
//   parameter, 413/415 for any body or upload, 429 for every rate-limited route; the route's own declarations stay;
// - every response a real description instead of "Default Response";
// - the headers every answer carries: request id and rate-limit counters, ETag and Cache-Control on reads, with
//   the 304 a conditional read earns, Retry-After on 429.
import type { RouteFactsTable } from './openapi-route-facts.js';
import { routeFactsKey } from './openapi-route-facts.js';
import { operationsOf } from './openapi-types.js';
import type { OpenApiDocument, OperationObject, ResponseObject } from './openapi-types.js';

const ERROR_SCHEMA = { $ref: '#/components/schemas/Error' };

const STATUS_TEXT: Record<string, string> = {
  '200': 'OK',
  '201': 'Created: the new object',
  '202': 'Accepted: the work goes on in the background',
  '204': 'Done; no content',
  '206': 'Partial content: the requested byte range',
  '302': 'Found: follow the Location header',
  '304': 'Not modified: the representation still matches the ETag sent in If-None-Match; no body',
  '400':
    'Invalid request: a path parameter, query value or body field does not match its schema or a rule ' +
    '(code INVALID_REQUEST or a more specific code; `details` names the field)',
  '401': 'Unauthenticated: credentials are missing, unknown, revoked or expired (code UNAUTHORIZED)',
  '403':
    "Forbidden: the caller's role, team membership or API key scopes do not allow this " +
    '(code FORBIDDEN or INSUFFICIENT_SCOPE)',
  '404': 'Not found: the object does not exist or the caller may not see it (code NOT_FOUND)',
  '405': 'Method not allowed for this path; the Allow header lists the methods that are',
  '409':
    'Conflict with the current state: a taken slug or name, a status that does not allow the change, a ' +
    'duplicate (code CONFLICT, SLUG_TAKEN, INVALID_STATUS_TRANSITION or a more specific code)',
  '413': 'Payload too large: the body or the uploaded file exceeds its limit (code PAYLOAD_TOO_LARGE)',
  '415':
    'Unsupported media type: the Content-Type, or the type of the uploaded file, is not accepted ' +
    '(code UNSUPPORTED_MEDIA_TYPE)',
  '416': 'Range not satisfiable',
  '429':
    'Too many requests: the per-minute limit is spent; retry after Retry-After seconds (code RATE_LIMITED)',
  '500': 'Internal error (code INTERNAL_ERROR)',
  '503': 'Service unavailable: a dependency is down; retry later',
};

const SUCCESS_TEXT_BY_METHOD: Record<string, string> = {
  get: 'OK: the requested data',
  post: 'OK: the outcome of the action',
  put: 'OK: the object as stored',
  patch: 'OK: the object after the change',
  delete: 'OK: the outcome of the deletion',
};

const header = (description: string, schema: Record<string, unknown>) => ({ description, schema });

/** Shared response headers, referenced from every response (components.headers). */
export const RESPONSE_HEADERS: Record<string, { description: string; schema: Record<string, unknown> }> = {
  'X-Request-Id': header('Id of this request, also in every error body; quote it when reporting a problem', {
    type: 'string',
  }),
  'X-RateLimit-Limit': header('Requests allowed per minute for this caller on this route', {
    type: 'integer',
    minimum: 0,
  }),
  'X-RateLimit-Remaining': header('Requests left in the current minute', { type: 'integer', minimum: 0 }),
  'X-RateLimit-Reset': header('Seconds until the current window ends', { type: 'integer', minimum: 0 }),
  Location: header('URL of the created object, or where a redirect leads', {
    type: 'string',
    format: 'uri-reference',
  }),
  'Retry-After': header('Seconds to wait before retrying', { type: 'integer', minimum: 0 }),
  ETag: header('Weak entity tag of the representation; send it back in If-None-Match to get a 304', {
    type: 'string',
  }),
  'Cache-Control': header('How long and by whom the answer may be cached', { type: 'string' }),
};

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

type Access = 'public' | 'optional' | 'required';

function accessOf(operation: OperationObject): Access {
  const security = operation.security ?? [];
  if (!security.some((requirement) => Object.keys(requirement).length > 0)) return 'public';
  return security.some((requirement) => Object.keys(requirement).length === 0) ? 'optional' : 'required';
}

/** The error statuses an operation can answer with, from what it reads and how it is guarded. */
function derivedErrorStatuses(
  path: string,
  operation: OperationObject,
  upload: boolean,
  limited: boolean,
): string[] {
  const statuses: string[] = [];
  const hasPathParameters = path.includes('{');
  const hasInput = hasPathParameters || (operation.parameters ?? []).length > 0;
  const hasBody = operation.requestBody !== undefined || upload;
  if (hasInput || hasBody) statuses.push('400');
  if (accessOf(operation) !== 'public') statuses.push('401', '403');
  if (hasPathParameters) statuses.push('404');
  if (hasBody) statuses.push('413', '415');
  if (limited) statuses.push('429');
  return statuses;
}

export function withDerivedResponses<T>(document: T, facts: RouteFactsTable): T {
  const doc = document as OpenApiDocument;
  doc.components ??= {};
  doc.components.headers = { ...(doc.components.headers ?? {}), ...RESPONSE_HEADERS };
  for (const { path, method, operation } of operationsOf(doc)) {
    operation.security ??= [];
    const routeFacts = facts.get(routeFactsKey(method, path));
    const limited = routeFacts?.rateLimited ?? true;
    const responses = (operation.responses ??= {});
    for (const status of derivedErrorStatuses(path, operation, routeFacts?.upload ?? false, limited)) {
      responses[status] ??= {
        description: '',
        content: { 'application/json': { schema: { ...ERROR_SCHEMA } } },
      };
    }
    if (method === 'get' && responses['200'] !== undefined) responses['304'] ??= { description: '' };
    for (const [status, response] of Object.entries(responses)) {
      errorsAsJson(status, response);
      if (!response.description || response.description === 'Default Response') {
        response.description = describeStatus(status, method);
      }
      response.headers = { ...headersFor(status, method, limited), ...(response.headers ?? {}) };
    }
  }
  return document;
}

/**
 * Errors are always JSON: a route that produces another type (a ZIP download declares `produces`) gets its error
 * responses documented under that type by the generator; they move back to application/json.
 */
function errorsAsJson(status: string, response: ResponseObject): void {
  if (Number(status) < 400 || response.content === undefined) return;
  const errorMedia = Object.entries(response.content).find(
    ([type, media]) => type !== 'application/json' && media.schema?.['$ref'] === ERROR_SCHEMA.$ref,
  );
  if (errorMedia === undefined) return;
  response.content = { 'application/json': { schema: { ...ERROR_SCHEMA } } };
}

function describeStatus(status: string, method: string): string {
  if (status === '200') return SUCCESS_TEXT_BY_METHOD[method] ?? STATUS_TEXT['200']!;
  return STATUS_TEXT[status] ?? `HTTP ${status}`;
}

function headersFor(status: string, method: string, limited: boolean): Record<string, unknown> {
  const headers: Record<string, unknown> = { 'X-Request-Id': headerRef('X-Request-Id') };
  if (limited) {
    for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) {
      headers[name] = headerRef(name);
    }
  }
  if (status === '429') headers['Retry-After'] = headerRef('Retry-After');
  if (/^3\d\d$/.test(status) && status !== '304') headers['Location'] = headerRef('Location');
  if (method === 'get' && (status === '200' || status === '304')) {
    headers['ETag'] = headerRef('ETag');
    headers['Cache-Control'] = headerRef('Cache-Control');
  }
  return headers;
}
