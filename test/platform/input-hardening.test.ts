// Issue 11, defects 1, 4, 13 and 16: hostile input is a 4xx in the one error shape, with the security headers
// and a request id, never a 500 and never a framework code.
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/core/http/input-guards.js';
import { MAX_OFFSET, MAX_PAGE } from '../../src/core/http/schemas.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas } from '../helpers/factories.js';
import type { Personas } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import { createResource, moderate } from '../resources/helpers.js';
import { createServer } from '../servers/helpers.js';
import { createTeam } from '../teams/helpers.js';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: { type?: string; maximum?: number; enum?: string[]; items?: { type?: string } };
}
type Operations = Record<string, Record<string, { parameters?: Parameter[] }>>;

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends raw bytes to a real listener and reads the answer up to the close: for what inject cannot send. */
function rawRequest(port: number, request: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    const chunks: Buffer[] = [];
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
    socket.write(request);
  });
}

const PAGING = new Set(['limit', 'offset', 'page']);
const BAD_PAGING_VALUES = ['Infinity', '-Infinity', '1e20', '-1', '1.5', 'NaN', '10000001', 'abc', ''];

describe('input hardening', () => {
  let t: TestApp;
  let personas: Personas;
  let operations: Operations;
  let ids: Record<string, string>;

  beforeAll(async () => {
    // Private targets allowed so that a webhook (with a delivery log to list) can point at 127.0.0.1.
    t = await buildTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true' });
    personas = await createPersonas(t.app);
    operations = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{ paths: Operations }>()
      .paths;
    const team = await createTeam(t.app, personas.admin);
    const resource = await createResource(t.app, personas.admin);
    // Approved, so the lists of public-only roots (dependents) answer for it too.
    await moderate(t.app, personas.admin, resource.id, 'APPROVE');
    const server = await createServer(t.app, personas.admin);
    const webhook = await t.app.inject({
      method: 'POST',
      url: '/webhooks',
      headers: personas.admin.headers,
      payload: { url: 'http://127.0.0.1:9/hook', events: ['*'], scope: { kind: 'USER' } },
    });
    ids = {
      userId: personas.admin.id,
      teamId: team.id,
      id: team.id,
      resourceId: resource.id,
      serverId: server.id,
      webhookId: webhook.json<{ id: string }>().id,
    };
  });
  afterAll(async () => t.close());

  /** Every GET operation taking limit/offset/page, with its path parameters filled with existing objects. */
  function listOperations() {
    const found: Array<{ url: string; paging: string[] }> = [];
    for (const [path, methods] of Object.entries(operations)) {
      const parameters = methods['get']?.parameters ?? [];
      const paging = parameters.filter((p) => p.in === 'query' && PAGING.has(p.name)).map((p) => p.name);
      if (paging.length === 0) continue;
      const url = path.replace(/\{(\w+)\}/g, (_, name: string) => {
        const parameter = parameters.find((p) => p.in === 'path' && p.name === name);
        // {id} names the object of the path's first segment: a team, a server or a resource.
        const idOf = path.startsWith('/servers/')
          ? ids['serverId']
          : path.startsWith('/resources/')
            ? ids['resourceId']
            : undefined;
        const value = parameter?.schema?.enum?.[0] ?? (name === 'id' ? idOf : undefined) ?? ids[name];
        if (value === undefined) throw new Error(`no value for {${name}} in ${path}`);
        return encodeURIComponent(value);
      });
      // Required query parameters other than paging (e.g. /users/search?q=) get a plain valid value.
      const required = parameters
        .filter((p) => p.in === 'query' && p.required === true && !PAGING.has(p.name))
        .map((p) => `${p.name}=${encodeURIComponent(p.schema?.enum?.[0] ?? 'abc')}&`)
        .join('');
      found.push({ url: `${url}?${required}`, paging });
    }
    return found;
  }

  describe('paging parameters (defect 1)', () => {
    it('finds the list endpoints in the OpenAPI document', () => {
      const urls = listOperations().map((operation) => operation.url.split('?')[0]);
      expect(urls.length).toBeGreaterThanOrEqual(20);
      expect(urls).toEqual(expect.arrayContaining(['/resources', '/teams', '/servers', '/admin/users']));
    });

    it('refuses non-finite, fractional, negative and oversized values on every list endpoint with 400', async () => {
      for (const { url, paging } of listOperations()) {
        for (const name of paging) {
          for (const value of BAD_PAGING_VALUES) {
            const response = await t.app.inject({
              method: 'GET',
              url: `${url}${name}=${encodeURIComponent(value)}`,
              headers: personas.admin.headers,
            });
            expect(response.statusCode, `${url}${name}=${value}: ${response.body}`).toBe(400);
            const body = expectError(response, 400, 'INVALID_REQUEST');
            expect(Object.keys((body.details as { fields: object }).fields)).toEqual([`querystring.${name}`]);
          }
        }
      }
    });

    it('answers 200 at the bounds on every list endpoint', async () => {
      const bounds: Record<string, number> = { limit: 100, offset: MAX_OFFSET, page: MAX_PAGE };
      for (const { url, paging } of listOperations()) {
        for (const name of paging) {
          const response = await t.app.inject({
            method: 'GET',
            url: `${url}${name}=${bounds[name]}`,
            headers: personas.admin.headers,
          });
          expect(response.statusCode, `${url}${name}=${bounds[name]}: ${response.body}`).toBe(200);
        }
      }
    });

    it('gives every numeric query and path parameter in the OpenAPI document a maximum', () => {
      const unbounded: string[] = [];
      for (const [path, methods] of Object.entries(operations)) {
        for (const [method, operation] of Object.entries(methods)) {
          for (const parameter of operation.parameters ?? []) {
            const type =
              parameter.schema?.type === 'array' ? parameter.schema.items?.type : parameter.schema?.type;
            const numeric = type === 'integer' || type === 'number';
            if (numeric && parameter.schema?.maximum === undefined) {
              unbounded.push(`${method} ${path} ${parameter.name}`);
            }
          }
        }
      }
      expect(unbounded).toEqual([]);
    });
  });

  describe('framework errors in the one shape (defect 4)', () => {
    const expectOurs = (
      response: Awaited<ReturnType<TestApp['app']['inject']>>,
      status: number,
      code: string,
    ) => {
      expectError(response, status, code);
      expect(response.body).not.toContain('FST_');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]+$/);
    };

    it('answers a malformed percent-encoding with 400 INVALID_REQUEST', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/resources/%E0%A4%A' });
      expectOurs(response, 400, 'INVALID_REQUEST');
    });

    it('answers a path parameter over 100 characters with 414 URI_TOO_LONG, without echoing it', async () => {
      const long = 'a'.repeat(150);
      const response = await t.app.inject({ method: 'GET', url: `/resources/${long}` });
      expectOurs(response, 414, 'URI_TOO_LONG');
      expect(response.body).not.toContain(long);
    });

    it('keeps a client request id through a framework error', async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: '/resources/%E0%A4%A',
        headers: { 'x-request-id': 'trace-123' },
      });
      expect(response.headers['x-request-id']).toBe('trace-123');
    });
  });

  describe('malformed HTTP on a real socket (defect 4)', () => {
    let port: number;
    beforeAll(async () => {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      port = (t.app.server.address() as AddressInfo).port;
    });

    const expectRawError = (response: RawResponse, status: number) => {
      expect(response.status, response.body).toBe(status);
      const body = JSON.parse(response.body) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(['code', 'error', 'message', 'requestId', 'statusCode']);
      expect(body['requestId']).toBe(response.headers['x-request-id']);
      expect(body['statusCode']).toBe(status);
      expect(response.body).not.toContain('FST_');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['x-request-id']).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      return body;
    };

    it('answers an unknown method (TRACK) with 400 in the one shape', async () => {
      const response = await rawRequest(port, 'TRACK /resources HTTP/1.1\r\nHost: x\r\n\r\n');
      expect(expectRawError(response, 400)['code']).toBe('INVALID_REQUEST');
    });

    it('answers a method the router does not serve (PROPFIND) with 405 on a known path, 404 elsewhere', async () => {
      const known = await rawRequest(
        port,
        'PROPFIND /resources HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      );
      expect(expectRawError(known, 405)['code']).toBe('METHOD_NOT_ALLOWED');
      expect(known.headers['allow']).toBe('POST, GET, HEAD');
      const unknown = await rawRequest(
        port,
        'PROPFIND /no-such-path HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      );
      expect(expectRawError(unknown, 404)['code']).toBe('NOT_FOUND');
    });

    it('answers a malformed request line and a malformed header with 400 in the one shape', async () => {
      expectRawError(await rawRequest(port, 'GET /a b c\r\n\r\n'), 400);
      expectRawError(await rawRequest(port, 'GET / HTTP/1.1\r\nHost x\r\n\r\n'), 400);
    });

    it('answers headers over the size limit with 431 in the one shape', async () => {
      const response = await rawRequest(
        port,
        `GET / HTTP/1.1\r\nHost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`,
      );
      expect(expectRawError(response, 431)['code']).toBe('HEADERS_TOO_LARGE');
    });
  });

  describe('request ids (defect 13)', () => {
    const idFor = async (sent: string) =>
      (await t.app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': sent } })).headers[
        'x-request-id'
      ];

    it('keeps a short, plain client id', async () => {
      expect(await idFor('abc-DEF_1.2:3')).toBe('abc-DEF_1.2:3');
      expect(await idFor('x'.repeat(128))).toBe('x'.repeat(128));
    });

    it('replaces an overlong or unusual client id with one of ours', async () => {
      for (const sent of ['x'.repeat(3000), 'x'.repeat(129), 'has space', 'semi;colon', '<script>']) {
        const id = await idFor(sent);
        expect(id).not.toBe(sent);
        expect(String(id)).toMatch(/^[A-Za-z0-9_-]{1,40}$/);
      }
    });
  });

  describe('deeply nested JSON (defect 16)', () => {
    const nested = (depth: number) => `${'['.repeat(depth - 1)}"x"${']'.repeat(depth - 1)}`;
    const login = (login: string) =>
      t.app.inject({
        method: 'POST',
        url: '/auth/login',
        headers: { 'content-type': 'application/json' },
        payload: `{"login":${login},"password":"correct horse battery"}`,
      });

    it('refuses 5,000 levels on an anonymous route with 400, not a stack overflow', async () => {
      const body = expectError(await login(nested(5000)), 400, 'INVALID_REQUEST');
      expect(body.message).toContain(`deeper than ${MAX_JSON_DEPTH}`);
    });

    it(`accepts ${MAX_JSON_DEPTH} levels as far as validation, and refuses one more`, async () => {
      // nested(n) wraps the string in n - 1 arrays; with the body object around them that is n levels.
      const atLimit = expectError(await login(nested(MAX_JSON_DEPTH)), 400, 'INVALID_REQUEST');
      expect(Object.keys((atLimit.details as { fields: object }).fields)).toEqual(['body.login']);
      const over = expectError(await login(nested(MAX_JSON_DEPTH + 1)), 400, 'INVALID_REQUEST');
      expect(over.message).toContain(`deeper than ${MAX_JSON_DEPTH}`);
    });

    it('still refuses prototype poisoning and malformed JSON in the one shape', async () => {
      const poisoned = await t.app.inject({
        method: 'POST',
        url: '/auth/login',
        headers: { 'content-type': 'application/json' },
        payload: '{"login":"a","password":"b","__proto__":{"admin":true}}',
      });
      expectError(poisoned, 400, 'INVALID_REQUEST');
      const malformed = await login('{');
      expectError(malformed, 400, 'INVALID_REQUEST');
    });
  });
});
