// Lists: Link headers beside `meta`, `offset` on page-based lists, and a 400 for a known query parameter with an
// unusable value on every list route of the document (unknown parameters stay ignored).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { createUser } from '../../helpers/factories.js';
import type { TestUser } from '../../helpers/factories.js';
import { expectError } from '../../helpers/http.js';

interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  schema: { type?: string | string[]; enum?: string[]; items?: { enum?: string[] }; minimum?: number };
}
interface Document {
  paths: Record<string, Record<string, { parameters?: Parameter[] }>>;
}

let t: TestApp;
let admin: TestUser;
let owner: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  [admin, owner] = await Promise.all([createUser(t.app, { role: 'SUPER_ADMIN' }), createUser(t.app)]);
  for (let index = 0; index < 5; index += 1) {
    const created = await t.app.inject({
      method: 'POST',
      url: '/resources',
      headers: owner.headers,
      payload: { name: `Listed ${index}`, slug: `listed-${index}`, type: 'PLUGIN', shortDescription: 'x' },
    });
    expect(created.statusCode, created.body).toBe(201);
  }
});
afterAll(async () => t.close());

/** Path parameter values tried in turn until the path itself validates (ids, then hex digests). */
const PATH_VALUES = ['no-such-id', '0'.repeat(40), '0'.repeat(64), '0'.repeat(128)];

/** Every GET operation with query parameters, its path parameters filled with values that validate. */
async function listOperations(): Promise<Array<{ url: string; query: Parameter[] }>> {
  const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as Document;
  const operations: Array<{ url: string; query: Parameter[] }> = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    const parameters = methods['get']?.parameters ?? [];
    const query = parameters.filter((parameter) => parameter.in === 'query');
    if (query.length === 0) continue;
    for (const value of PATH_VALUES) {
      let url = path;
      for (const parameter of parameters.filter((p) => p.in === 'path')) {
        url = url.replace(`{${parameter.name}}`, parameter.schema.enum?.[0] ?? value);
      }
      const baseline = await t.app.inject({
        method: 'GET',
        url: `${url}?${requiredQuery(query)}`,
        headers: admin.headers,
      });
      if (baseline.statusCode === 400) continue;
      operations.push({ url, query });
      break;
    }
  }
  return operations;
}

/** The query parameters an operation requires, with values that pass validation. */
function requiredQuery(query: Parameter[]): string {
  return query
    .filter((parameter) => parameter.required === true)
    .map((parameter) => `${parameter.name}=${parameter.schema.enum?.[0] ?? 'abc'}`)
    .join('&');
}

describe('known query parameters with unusable values', () => {
  it('answer 400 on every GET of the document: non-integers, out-of-range integers, unknown enum values, repeats', async () => {
    const operations = await listOperations();
    // Every GET with query parameters has a baseline that validates (so the 400s below are the parameters').
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as Document;
    const withQuery = Object.values(document.paths).filter((methods) =>
      (methods['get']?.parameters ?? []).some((parameter) => parameter.in === 'query'),
    );
    expect(operations.length).toBe(withQuery.length);
    expect(operations.length).toBeGreaterThan(20);
    const failures: string[] = [];
    for (const { url, query } of operations) {
      const base = requiredQuery(query);
      const join = (extra: string) => `${url}?${[base, extra].filter(Boolean).join('&')}`;
      for (const parameter of query) {
        const type = [parameter.schema.type].flat()[0];
        const bad: string[] = [];
        if (type === 'integer' || type === 'number') {
          bad.push(`${parameter.name}=abc`, `${parameter.name}=1&${parameter.name}=2`);
          if (parameter.schema.minimum !== undefined)
            bad.push(`${parameter.name}=${parameter.schema.minimum - 1}`);
        }
        if (parameter.schema.enum !== undefined) bad.push(`${parameter.name}=not-a-known-value`);
        if (parameter.schema.items?.enum !== undefined) bad.push(`${parameter.name}=not-a-known-value`);
        for (const extra of bad) {
          const res = await t.app.inject({ method: 'GET', url: join(extra), headers: admin.headers });
          if (res.statusCode !== 400) failures.push(`${join(extra)} → ${res.statusCode}`);
        }
      }
      const unknown = await t.app.inject({
        method: 'GET',
        url: join('zz-unknown=1'),
        headers: admin.headers,
      });
      if (unknown.statusCode === 400) failures.push(`${join('zz-unknown=1')} → 400 for an unknown parameter`);
    }
    expect(failures).toEqual([]);
  });

  it('every list answering with meta accepts limit and offset', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<
        string,
        Record<string, { parameters?: Parameter[]; responses?: Record<string, unknown> }>
      >;
    };
    const missing: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      const answer = JSON.stringify(operations['get']?.responses?.['200'] ?? {});
      const names = (operations['get']?.parameters ?? []).map((parameter) => parameter.name);
      const paged = names.includes('page') || (names.includes('limit') && answer.includes('PageMeta'));
      if (paged && !(names.includes('limit') && names.includes('offset'))) missing.push(path);
    }
    expect(missing).toEqual([]);
  });
});

describe('offset on page-based lists', () => {
  const mine = (query: string) =>
    t.app.inject({ method: 'GET', url: `/resources/me?${query}`, headers: owner.headers });
  const slugs = (body: string) =>
    (JSON.parse(body) as { resources: Array<{ slug: string }> }).resources.map((r) => r.slug);

  it('pages with offset as with page', async () => {
    const byPage = await mine('limit=2&page=2');
    const byOffset = await mine('limit=2&offset=2');
    expect(byOffset.statusCode, byOffset.body).toBe(200);
    expect(slugs(byOffset.body)).toEqual(slugs(byPage.body));
    expect(slugs(byOffset.body)).not.toEqual(slugs((await mine('limit=2')).body));
    expect((byOffset.json() as { meta: object }).meta).toMatchObject({
      offset: 2,
      limit: 2,
      page: 2,
      total: 5,
    });
    expect((await mine('limit=2&page=2&offset=2')).statusCode).toBe(200);
  });

  it('refuses an offset between pages, and a page that disagrees with the offset', async () => {
    expectError(await mine('limit=2&offset=3'), 400, 'INVALID_REQUEST');
    expectError(await mine('limit=2&page=1&offset=2'), 400, 'INVALID_REQUEST');
    expectError(await mine('offset=-1'), 400, 'INVALID_REQUEST');
  });
});

describe('Link headers', () => {
  it('give first, prev, next and last beside meta, keeping the other parameters', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/resources/me?limit=2&page=2&x=1',
      headers: owner.headers,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['link']).toBe(
      [
        '</resources/me?limit=2&x=1&offset=0>; rel="first"',
        '</resources/me?limit=2&x=1&offset=0>; rel="prev"',
        '</resources/me?limit=2&x=1&offset=4>; rel="next"',
        '</resources/me?limit=2&x=1&offset=4>; rel="last"',
      ].join(', '),
    );
  });

  it('leave out prev on the first page and next on the last, on limit/offset lists too', async () => {
    const first = await t.app.inject({
      method: 'GET',
      url: '/resources/me?limit=10',
      headers: owner.headers,
    });
    expect(first.headers['link']).toBe(
      '</resources/me?limit=10&offset=0>; rel="first", </resources/me?limit=10&offset=0>; rel="last"',
    );
    const users = await t.app.inject({
      method: 'GET',
      url: '/admin/users?limit=1&offset=1',
      headers: admin.headers,
    });
    expect(users.statusCode).toBe(200);
    const total = (users.json() as { meta: { total: number } }).meta.total;
    expect(users.headers['link']).toContain('</admin/users?limit=1&offset=0>; rel="prev"');
    expect(users.headers['link']).toContain(`</admin/users?limit=1&offset=${total - 1}>; rel="last"`);
  });

  it('are followed to the same pages the body describes', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/resources/me?limit=2', headers: owner.headers });
    const next = /<([^>]+)>; rel="next"/.exec(res.headers['link'] as string)![1]!;
    const followed = await t.app.inject({ method: 'GET', url: next, headers: owner.headers });
    expect((followed.json() as { meta: { offset: number } }).meta.offset).toBe(2);
  });

  it('are absent on answers that are not lists', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/health' })).headers['link']).toBeUndefined();
  });
});
