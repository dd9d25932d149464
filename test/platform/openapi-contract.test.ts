// The OpenAPI document as a contract (issue 12): every operation described, tagged, identified and secured;
// every response described, with the error statuses its route can produce and the headers every answer carries;
// every example valid against its schema; path twins and wildcards in a form linters and generators accept.
// The linters themselves run in CI (`npm run lint:api`, .ci/run): they take longer than a test should.
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenApiDocument, OperationObject } from '../../src/core/http/openapi-types.js';
import { operationsOf } from '../../src/core/http/openapi-types.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

let t: TestApp;
let doc: Required<OpenApiDocument> & { tags: Array<{ name: string }> };
let operations: Array<{ path: string; method: string; operation: OperationObject }>;
let validatorOf: (schema: unknown) => ValidateFunction;

beforeAll(async () => {
  t = await buildTestApp();
  const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(response.statusCode).toBe(200);
  doc = response.json();
  operations = [...operationsOf(doc)];
  // Examples are checked the way Fastify checks requests: Ajv with formats; `#/components/…` resolves in the
  // document, registered once under the id "openapi".
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'openapi', components: doc.components }, 'openapi');
  // The same shape recurs across operations (Error above all): compiled once.
  const compiled = new Map<string, ValidateFunction>();
  validatorOf = (schema) => {
    const text = JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/');
    let validate = compiled.get(text);
    if (validate === undefined) compiled.set(text, (validate = ajv.compile(JSON.parse(text))));
    return validate;
  };
});
afterAll(async () => {
  await t.close();
});

const where = (path: string, method: string) => `${method.toUpperCase()} ${path}`;

describe('every operation', () => {
  it('has a summary, a description, declared tags, a unique operationId and a security list', () => {
    expect(operations.length).toBeGreaterThan(200);
    const declaredTags = new Set(doc.tags.map((tag) => tag.name));
    const ids = new Set<string>();
    for (const { path, method, operation } of operations) {
      const at = where(path, method);
      expect(operation.summary, at).toMatch(/\S/);
      expect(operation.description, at).toMatch(/\S{3}/);
      expect(operation.tags?.length, at).toBeGreaterThan(0);
      for (const tag of operation.tags ?? []) expect(declaredTags.has(tag), `${at} tag ${tag}`).toBe(true);
      expect(operation.operationId, at).toMatch(/^[a-z][A-Za-z0-9]*$/);
      expect(ids.has(operation.operationId!), `${at} reuses ${operation.operationId}`).toBe(false);
      ids.add(operation.operationId!);
      expect(Array.isArray(operation.security), at).toBe(true);
    }
  });

  it('documents public routes with `security: []` and guarded ones with credentials', () => {
    const guarded = new Set(
      t.app.scopedRoutes
        .filter(({ facts }) => facts.minimumRole !== null || facts.upload)
        .map(({ method, url }) => `${method} ${url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`),
    );
    const publicOperations = new Set(['GET /health', 'GET /badges', 'GET /resources', 'POST /auth/login']);
    for (const { path, method, operation } of operations) {
      const requirements = operation.security ?? [];
      const secured = requirements.some((requirement) => Object.keys(requirement).length > 0);
      if (publicOperations.has(where(path, method))) expect(requirements, where(path, method)).toEqual([]);
      if (guarded.has(where(path, method))) expect(secured, where(path, method)).toBe(true);
    }
    expect(guarded.size).toBeGreaterThan(20);
  });

  it('has at least one example request or response, and every example validates against its schema', () => {
    let checked = 0;
    const failures: string[] = [];
    const check = (at: string, schema: unknown, example: unknown) => {
      const validate = validatorOf(schema);
      checked += 1;
      if (!validate(example)) failures.push(`${at}: ${JSON.stringify(validate.errors?.slice(0, 2))}`);
    };
    for (const { path, method, operation } of operations) {
      const at = where(path, method);
      let examples = 0;
      for (const parameter of operation.parameters ?? []) {
        expect(parameter.example, `${at} parameter ${parameter.name}`).toBeDefined();
        check(`${at} parameter ${parameter.name}`, parameter.schema, parameter.example);
      }
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
        if (type !== 'application/json') continue;
        expect(media.example, `${at} request body`).toBeDefined();
        check(`${at} request body`, media.schema, media.example);
        examples += 1;
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const json = response.content?.['application/json'];
        if (json === undefined) continue;
        expect(json.example, `${at} ${status}`).toBeDefined();
        check(`${at} ${status}`, json.schema, json.example);
        examples += 1;
      }
      expect(examples, `${at} has no example`).toBeGreaterThan(0);
    }
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(1000);
  });
});

describe('every response', () => {
  it('has a real description, never "Default Response"', () => {
    for (const { path, method, operation } of operations) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        expect(response.description, `${where(path, method)} ${status}`).toMatch(/\S/);
        expect(response.description).not.toBe('Default Response');
      }
    }
  });

  it('declares the errors its route can produce: 400 for input, 401/403 with credentials, 404 for path parameters, 413/415 for bodies, 429 when limited', () => {
    for (const { path, method, operation } of operations) {
      const at = where(path, method);
      const statuses = Object.keys(operation.responses ?? {});
      const secured = (operation.security ?? []).some((requirement) => Object.keys(requirement).length > 0);
      if (path.includes('{')) expect(statuses, at).toEqual(expect.arrayContaining(['400', '404']));
      if (secured) expect(statuses, at).toEqual(expect.arrayContaining(['401', '403']));
      if (operation.requestBody !== undefined)
        expect(statuses, at).toEqual(expect.arrayContaining(['413', '415']));
      const limited = !['GET /health', 'GET /ready'].includes(at);
      expect(statuses.includes('429'), at).toBe(limited);
      for (const status of statuses.filter((s) => Number(s) >= 400 && Number(s) < 500)) {
        expect(
          operation.responses![status]!.content?.['application/json']?.schema,
          `${at} ${status}`,
        ).toEqual({
          $ref: '#/components/schemas/Error',
        });
      }
    }
  });

  it('names the request id and rate-limit headers, ETag and Cache-Control on reads, Retry-After on 429', () => {
    const headers = doc.components.headers as Record<string, unknown>;
    for (const name of [
      'X-Request-Id',
      'X-RateLimit-Limit',
      'ETag',
      'Cache-Control',
      'Retry-After',
      'Location',
    ]) {
      expect(headers, name).toHaveProperty(name);
    }
    for (const { path, method, operation } of operations) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const names = Object.keys(response.headers ?? {});
        const at = `${where(path, method)} ${status}`;
        expect(names, at).toContain('X-Request-Id');
        if (status === '429')
          expect(names, at).toEqual(expect.arrayContaining(['Retry-After', 'X-RateLimit-Reset']));
        if (method === 'get' && status === '200')
          expect(names, at).toEqual(expect.arrayContaining(['ETag', 'Cache-Control']));
        if (status === '201') expect(names, at).toContain('Location');
      }
    }
  });

  it('names only headers a real answer carries', async () => {
    const limited = await buildTestApp({ RATE_LIMIT: 'true' });
    try {
      const answer = await limited.app.inject({ method: 'GET', url: '/badges' });
      expect(answer.statusCode).toBe(200);
      for (const name of [
        'x-request-id',
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
        'etag',
      ]) {
        expect(answer.headers, name).toHaveProperty(name);
      }
      const documented = Object.keys(doc.paths['/badges']!['get']!.responses!['200']!.headers ?? {});
      for (const name of documented.filter((header) => header !== 'Cache-Control' && header !== 'Link')) {
        expect(answer.headers, name).toHaveProperty(name.toLowerCase());
      }
    } finally {
      await limited.close();
    }
  });
});

describe('path templates', () => {
  it('holds no two paths that differ only by parameter names, and no wildcard name', () => {
    const shapes = new Map<string, string>();
    for (const path of Object.keys(doc.paths)) {
      expect(path).not.toContain('{*}');
      const shape = path.replace(/\{[^}]+\}/g, '{}');
      expect(shapes.get(shape), `${path} twins ${shapes.get(shape)}`).toBeUndefined();
      shapes.set(shape, path);
    }
    expect(doc.paths['/cdn/{path}']?.['get']?.parameters?.map((parameter) => parameter.name)).toContain(
      'path',
    );
  });

  it('keeps the interface form /server-tags/{slug} for every method: the admin routes take the slug or the id', () => {
    for (const base of ['/server-tags', '/server-categories']) {
      const item = doc.paths[`${base}/{slug}`]!;
      expect(Object.keys(item).sort()).toEqual(['delete', 'get', 'patch']);
      expect(doc.paths[`${base}/{id}`]).toBeUndefined();
      const key = item['patch']!.parameters!.find((parameter) => parameter.in === 'path')!;
      expect(key.name).toBe('slug');
      expect(key.description).toMatch(/slug, or the id/);
    }
  });

  it('edits and deletes a catalog entry by slug or by id at the one template', async () => {
    const admin = await createUser(t.app, { role: 'ADMIN' });
    for (const base of ['/server-tags', '/server-categories']) {
      const created = async (slug: string) => {
        const response = await t.app.inject({
          method: 'POST',
          url: base,
          headers: admin.headers,
          payload: { name: `Contract ${slug}`, slug },
        });
        expect(response.statusCode, response.body).toBe(201);
        return response.json<{ id: string }>().id;
      };
      const byId = await created('contract-by-id');
      await created('contract-by-slug');
      expect((await t.app.inject({ method: 'GET', url: `${base}/contract-by-slug` })).statusCode).toBe(200);
      for (const key of [byId, 'contract-by-slug']) {
        const patched = await t.app.inject({
          method: 'PATCH',
          url: `${base}/${key}`,
          headers: admin.headers,
          payload: { name: 'Renamed' },
        });
        expect(patched.statusCode, patched.body).toBe(200);
        expect(patched.json()).toMatchObject({ name: 'Renamed' });
        const deleted = await t.app.inject({
          method: 'DELETE',
          url: `${base}/${key}`,
          headers: admin.headers,
        });
        expect(deleted.statusCode).toBe(204);
        const again = await t.app.inject({ method: 'DELETE', url: `${base}/${key}`, headers: admin.headers });
        expect(again.statusCode).toBe(404);
      }
    }
  });

  it('keeps only components an operation reaches', () => {
    const text = JSON.stringify(doc.paths) + JSON.stringify(doc.components.schemas);
    for (const name of Object.keys(doc.components.schemas ?? {})) {
      expect(text.includes(`"#/components/schemas/${name}"`), name).toBe(true);
    }
  });
});
