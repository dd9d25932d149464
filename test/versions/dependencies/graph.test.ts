// Dependents of a resource and the dependency tree (spec/extensions.md §2.2): newest-version rule, type filter,
// pagination, cycles, the depth cut at 10, missing targets, external targets and public-only roots.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { expectError } from '../../helpers/http.js';
import { loadOpenApi } from '../../helpers/openapi.js';
import { createResource, createResourceCast, moderate } from '../../resources/helpers.js';
import type { ResourceCast } from '../../resources/helpers.js';
import { createVersion } from '../helpers.js';
import { approvedResource, getJson, release } from './helpers.js';

let t: TestApp;
let cast: ResourceCast;

beforeAll(async () => {
  t = await buildTestApp();
  cast = await createResourceCast(t.app);
});
afterAll(async () => t.close());

interface Dependents {
  resources: Array<{ id: string; slug: string; dependencyType: string; viaVersionId: string }>;
  total: number;
}
interface Tree {
  root: { resource: { id: string }; version: { id: string; versionNumber: string } };
  nodes: Array<{
    resource: { id: string; slug: string };
    version: { id: string };
    type: string;
    depth: number;
    requiredByVersionId: string;
    minVersion: string | null;
  }>;
  missing: Array<{ reason: string; resourceId: string | null; externalName: string | null; depth: number }>;
  truncated: boolean;
}

const dependents = (id: string, query = '') => `/resources/${id}/dependents${query}`;
const tree = (id: string, query = '') => `/resources/${id}/dependencies/tree${query}`;

describe('GET /resources/:id/dependents', () => {
  it('lists APPROVED resources whose newest APPROVED version depends on it, filtered and paged', async () => {
    const library = await approvedResource(t, cast);
    const libraryVersion = await release(t, cast, library.id);
    const [b, c, d, e] = await Promise.all([1, 2, 3, 4].map(() => approvedResource(t, cast, cast.stranger)));
    const viaB = await release(t, cast, b!.id, [{ type: 'REQUIRED', resourceId: library.id }], cast.stranger);
    const viaC = await release(
      t,
      cast,
      c!.id,
      [{ type: 'OPTIONAL', versionId: libraryVersion.id }],
      cast.stranger,
    );
    // d depended on it in an older version only; e only in a draft.
    await release(t, cast, d!.id, [{ type: 'REQUIRED', resourceId: library.id }], cast.stranger);
    await release(t, cast, d!.id, [], cast.stranger);
    await createVersion(t.app, cast.stranger, e!.id, {
      dependencies: [{ type: 'REQUIRED', resourceId: library.id }],
    });

    const all = await getJson<Dependents>(t, dependents(library.id));
    expect(all.total).toBe(2);
    expect(all.resources.map((r) => [r.id, r.dependencyType, r.viaVersionId]).sort()).toEqual(
      [
        [b!.id, 'REQUIRED', viaB.id],
        [c!.id, 'OPTIONAL', viaC.id],
      ].sort(),
    );
    expect(all.resources[0]).toHaveProperty('slug');

    const optional = await getJson<Dependents>(t, dependents(library.id, '?type=OPTIONAL'));
    expect(optional).toMatchObject({ total: 1, resources: [{ id: c!.id }] });
    const first = await getJson<Dependents>(t, dependents(library.id, '?limit=1'));
    const second = await getJson<Dependents>(t, dependents(library.id, '?limit=1&offset=1'));
    expect(first.total).toBe(2);
    expect([first.resources[0]!.id, second.resources[0]!.id].sort()).toEqual([b!.id, c!.id].sort());
    expect((await getJson<Dependents>(t, dependents(library.id, '?offset=5'))).resources).toEqual([]);

    // A dependent that is suspended drops out.
    await moderate(t.app, cast.moderator, b!.id, 'SUSPEND', 'rules');
    expect((await getJson<Dependents>(t, dependents(library.id))).total).toBe(1);
  });

  it.each(['?type=MAYBE', '?limit=0', '?limit=101', '?offset=-1', '?limit=abc'])(
    'refuses %s (400)',
    async (q) => {
      const library = await approvedResource(t, cast);
      expectError(await t.app.inject({ method: 'GET', url: dependents(library.id, q) }), 400);
    },
  );

  it('is 404 for a resource the public cannot see, even to its owner', async () => {
    const hidden = await createResource(t.app, cast.owner);
    expectError(await t.app.inject({ method: 'GET', url: dependents(hidden.id) }), 404);
    expectError(
      await t.app.inject({ method: 'GET', url: dependents(hidden.id), headers: cast.owner.headers }),
      404,
    );
    expectError(await t.app.inject({ method: 'GET', url: dependents('no-such-resource') }), 404);
    expectError(await t.app.inject({ method: 'GET', url: tree(hidden.id) }), 404);
  });
});

describe('GET /resources/:id/dependencies/tree', () => {
  it('resolves REQUIRED dependencies breadth first and cuts a cycle A → B → A', async () => {
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => approvedResource(t, cast)));
    await release(t, cast, a!.id); // a first version, so B can depend on A
    const cVersion = await release(t, cast, c!.id);
    const bVersion = await release(t, cast, b!.id, [
      { type: 'REQUIRED', resourceId: a!.id },
      { type: 'REQUIRED', versionId: cVersion.id, minVersion: '1.0' },
    ]);
    const aVersion = await release(t, cast, a!.id, [
      { type: 'REQUIRED', resourceId: b!.id },
      { type: 'OPTIONAL', resourceId: c!.id },
    ]);
    const result = await getJson<Tree>(t, tree(a!.id));
    expect(result.root).toMatchObject({ resource: { id: a!.id }, version: { id: aVersion.id } });
    expect(result.nodes.map((n) => [n.resource.id, n.version.id, n.depth, n.requiredByVersionId])).toEqual([
      [b!.id, bVersion.id, 1, aVersion.id],
      [c!.id, cVersion.id, 2, bVersion.id],
    ]);
    expect(result.nodes[1]).toMatchObject({ type: 'REQUIRED', minVersion: '1.0' });
    expect(result).toMatchObject({ missing: [], truncated: false });

    // From B the cycle is cut at A; versionId picks an older root.
    const fromB = await getJson<Tree>(t, tree(b!.id));
    expect(fromB.nodes.map((n) => n.resource.id)).toEqual([a!.id, c!.id]);
    const oldRoot = await getJson<Tree>(t, tree(a!.id, `?versionId=${aVersion.id}`));
    expect(oldRoot.root.version.id).toBe(aVersion.id);
  });

  it('stops a chain of 12 at depth 10 and says it was truncated', async () => {
    const chain: Array<{ id: string }> = [];
    for (let i = 0; i < 12; i++) chain.push(await approvedResource(t, cast));
    for (let i = 11; i >= 0; i--) {
      await release(
        t,
        cast,
        chain[i]!.id,
        i === 11 ? [] : [{ type: 'REQUIRED', resourceId: chain[i + 1]!.id }],
      );
    }
    const result = await getJson<Tree>(t, tree(chain[0]!.id));
    expect(result.nodes.map((n) => n.depth)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(result.nodes.map((n) => n.resource.id)).toEqual(chain.slice(1, 11).map((r) => r.id));
    expect(result.truncated).toBe(true);
    const fromSecond = await getJson<Tree>(t, tree(chain[1]!.id));
    expect(fromSecond.nodes).toHaveLength(10);
    expect(fromSecond.truncated).toBe(false);
  });

  it('lists external, unreleased, hidden and deleted targets as missing', async () => {
    const root = await approvedResource(t, cast);
    const unreleased = await approvedResource(t, cast);
    const [hidden, doomed] = await Promise.all([approvedResource(t, cast), approvedResource(t, cast)]);
    await release(t, cast, hidden.id);
    await release(t, cast, doomed.id);
    await release(t, cast, root.id, [
      { type: 'REQUIRED', externalName: 'HytaleCore', externalUrl: 'https://example.org/core' },
      { type: 'REQUIRED', resourceId: unreleased.id },
      { type: 'REQUIRED', resourceId: hidden.id },
      { type: 'REQUIRED', resourceId: doomed.id },
      { type: 'OPTIONAL', externalName: 'not followed' },
    ]);
    await moderate(t.app, cast.moderator, hidden.id, 'SUSPEND', 'rules');
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/resources/${doomed.id}`,
      headers: cast.owner.headers,
    });
    expect(deleted.statusCode, deleted.body).toBe(204);
    const result = await getJson<Tree>(t, tree(root.id));
    expect(result.nodes).toEqual([]);
    expect(result.missing.map((m) => [m.reason, m.resourceId ?? m.externalName, m.depth])).toEqual([
      ['EXTERNAL', 'HytaleCore', 1],
      ['NO_APPROVED_VERSION', unreleased.id, 1],
      ['NOT_FOUND', hidden.id, 1],
      ['NOT_FOUND', null, 1],
    ]);
  });

  it('is 404 for a version the public cannot see or of another resource, and 400 for a bad id', async () => {
    const root = await approvedResource(t, cast);
    const other = await approvedResource(t, cast);
    const otherVersion = await release(t, cast, other.id);
    expectError(await t.app.inject({ method: 'GET', url: tree(root.id) }), 404); // no APPROVED version yet
    const draft = await createVersion(t.app, cast.owner, root.id);
    await release(t, cast, root.id);
    expectError(await t.app.inject({ method: 'GET', url: tree(root.id, `?versionId=${draft.id}`) }), 404);
    expectError(
      await t.app.inject({ method: 'GET', url: tree(root.id, `?versionId=${otherVersion.id}`) }),
      404,
    );
    expectError(
      await t.app.inject({ method: 'GET', url: tree(root.id, `?versionId=${'x'.repeat(65)}`) }),
      400,
    );
  });
});

describe('OpenAPI', () => {
  it.each([
    ['/resources/{resourceId}/dependents', 'listDependents'],
    ['/resources/{resourceId}/dependencies/tree', 'getDependencyTree'],
  ])('documents %s as a public route', async (path, operationId) => {
    const operation = (await loadOpenApi(t.app)).paths[path]?.['get'];
    expect(operation?.operationId).toBe(operationId);
    expect(operation?.summary?.length).toBeGreaterThan(0);
    expect((operation as { description?: string } | undefined)?.description?.length).toBeGreaterThan(0);
    expect(operation?.security).toEqual([]);
    expect(Object.keys(operation?.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '404']));
  });
});
