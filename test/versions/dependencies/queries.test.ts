// No N+1 (spec/extensions.md §2.2): the versions list reads every version's dependencies in one query, the
// validation costs the same for 1 or 40 targets, and the tree costs a fixed number of queries per depth level.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { createResourceCast } from '../../resources/helpers.js';
import type { ResourceCast } from '../../resources/helpers.js';
import { gameVersionIds, versionsUrl } from '../helpers.js';
import { approvedResource, getJson, release, selectsOf } from './helpers.js';

let t: TestApp;
let cast: ResourceCast;

beforeAll(async () => {
  t = await buildTestApp({ METRICS: 'on' });
  cast = await createResourceCast(t.app);
});
afterAll(async () => t.close());

it('lists versions with their dependencies in the same number of queries for 1 or 6 versions', async () => {
  const [one, six, target] = await Promise.all([1, 2, 3].map(() => approvedResource(t, cast)));
  await release(t, cast, one!.id, [{ type: 'REQUIRED', resourceId: target!.id }]);
  for (let i = 0; i < 6; i++) await release(t, cast, six!.id, [{ type: 'REQUIRED', resourceId: target!.id }]);
  const small = await selectsOf(t, () => getJson(t, versionsUrl(one!.id)));
  const large = await selectsOf(t, () => getJson(t, versionsUrl(six!.id)));
  expect(small).toBeGreaterThan(0);
  expect(large).toBe(small);
});

it('validates 1 or 40 internal targets in the same number of queries', async () => {
  const targets: Array<{ id: string }> = [];
  for (let i = 0; i < 40; i++) targets.push(await approvedResource(t, cast));
  const mine = await approvedResource(t, cast);
  const [gameVersion] = await gameVersionIds(t.app);
  const create = (count: number) => () =>
    t.app.inject({
      method: 'POST',
      url: versionsUrl(mine.id),
      headers: cast.owner.headers,
      payload: {
        versionNumber: `q.${count}`,
        channel: 'RELEASE',
        compatibleGameVersionIds: [gameVersion],
        dependencies: targets.slice(0, count).map((r) => ({ type: 'REQUIRED', resourceId: r.id })),
      },
    });
  const one = await selectsOf(t, create(1));
  const forty = await selectsOf(t, create(40));
  expect(one).toBeGreaterThan(0);
  expect(forty).toBe(one);
});

it('resolves a wide tree level in as many queries as a narrow one', async () => {
  const [narrowRoot, wideRoot, leaf] = await Promise.all([1, 2, 3].map(() => approvedResource(t, cast)));
  await release(t, cast, leaf!.id);
  const wide: Array<{ id: string }> = [];
  for (let i = 0; i < 8; i++) {
    const resource = await approvedResource(t, cast);
    await release(t, cast, resource.id, [{ type: 'REQUIRED', resourceId: leaf!.id }]);
    wide.push(resource);
  }
  await release(t, cast, narrowRoot!.id, [{ type: 'REQUIRED', resourceId: wide[0]!.id }]);
  await release(
    t,
    cast,
    wideRoot!.id,
    wide.map((r) => ({ type: 'REQUIRED', resourceId: r.id })),
  );
  const url = (id: string) => `/resources/${id}/dependencies/tree`;
  const narrow = await selectsOf(t, () => getJson(t, url(narrowRoot!.id)));
  const wideCost = await selectsOf(t, () => getJson(t, url(wideRoot!.id)));
  expect(narrow).toBeGreaterThan(0);
  expect(wideCost).toBe(narrow);
  const tree = await getJson<{ nodes: Array<{ depth: number }> }>(t, url(wideRoot!.id));
  expect(tree.nodes.filter((n) => n.depth === 1)).toHaveLength(8);
  expect(tree.nodes.filter((n) => n.depth === 2)).toHaveLength(1);
});
