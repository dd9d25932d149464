// The resource catalogs: resource tags (/resource-tags), resource categories per type (/resources/categories)
// and game versions (/game-versions): seeded defaults, public reads, admin writes, maintained usage counts, and
// resources showing catalog changes at once.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import { createResource, expectResourceInvariants, readCatalogs } from '../resources/helpers.js';
import type { Catalogs, ResourceBody } from '../resources/helpers.js';

let t: TestApp;
let admin: TestUser;
let superAdmin: TestUser;
let moderator: TestUser;
let user: TestUser;
let catalogs: Catalogs;

beforeAll(async () => {
  t = await buildTestApp();
  [admin, superAdmin, moderator, user] = await Promise.all([
    createUser(t.app, { role: 'ADMIN' }),
    createUser(t.app, { role: 'SUPER_ADMIN' }),
    createUser(t.app, { role: 'MODERATOR' }),
    createUser(t.app),
  ]);
  catalogs = await readCatalogs(t.app);
});
afterAll(async () => t.close());
afterEach(async () => expectResourceInvariants(t.app));

const tagId = (slug: string) => catalogs.tags.find((tag) => tag.slug === slug)!.id;
const get = async (url: string) => {
  const response = await t.app.inject({ method: 'GET', url });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Record<string, unknown>;
};
const getResource = async (id: string) =>
  (
    await t.app.inject({ method: 'GET', url: `/resources/${id}`, headers: user.headers })
  ).json() as ResourceBody;

/** The write routes are for ADMIN and SUPER_ADMIN only. */
async function expectAdminOnly(method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) {
  expectError(await t.app.inject({ method, url, ...(payload ? { payload } : {}) }), 401);
  for (const caller of [user, moderator]) {
    expectError(
      await t.app.inject({ method, url, headers: caller.headers, ...(payload ? { payload } : {}) }),
      403,
    );
  }
}

describe('resource tags', () => {
  it('lists the seeded tags by name, with the total from the counter', async () => {
    const body = (await get('/resource-tags')) as {
      tags: Array<{ name: string; usageCount: number }>;
      total: number;
      meta: unknown;
    };
    expect(body.total).toBe(body.tags.length);
    expect(body.tags.length).toBeGreaterThanOrEqual(20);
    const sortedNames = body.tags.map((tag) => tag.name);
    expect(sortedNames).toEqual([...sortedNames].sort());
    expect(body.meta).toEqual({ total: body.total, limit: 100, offset: 0 });
    const page = (await get('/resource-tags?limit=2&offset=1')) as {
      tags: Array<{ name: string }>;
      total: number;
    };
    expect(page.tags.map((tag) => tag.name)).toEqual(sortedNames.slice(1, 3));
    expect(page.total).toBe(body.total);
    expectError(await t.app.inject({ method: 'GET', url: '/resource-tags?limit=101' }), 400);
  });

  it('searches by name case-insensitively, counting what matched', async () => {
    const body = (await get('/resource-tags?search=MAG')) as { tags: Array<{ slug: string }>; total: number };
    expect(body.tags.map((tag) => tag.slug)).toEqual(['magic']);
    expect(body.total).toBe(1);
  });

  it('autocompletes on name or slug, most used first, 10 by default', async () => {
    await createResource(t.app, user, { tagIds: [tagId('pve')] });
    const body = (await get('/resource-tags/search?q=p')) as { tags: Array<Record<string, unknown>> };
    expect(body.tags.length).toBeLessThanOrEqual(10);
    expect(body.tags[0]).toEqual({ id: tagId('pve'), name: 'PvE', slug: 'pve', usageCount: 1 });
    const all = (await get('/resource-tags/search?q=e&limit=100')) as { tags: unknown[] };
    expect(all.tags.length).toBeGreaterThan(10);
    expect(((await get('/resource-tags/search?q=e')) as { tags: unknown[] }).tags).toHaveLength(10);
    expectError(await t.app.inject({ method: 'GET', url: '/resource-tags/search' }), 400);
  });

  it('finds a tag by slug and by id; 404 otherwise', async () => {
    const bySlug = await get('/resource-tags/slug/magic');
    expect(bySlug).toMatchObject({ id: tagId('magic'), name: 'Magic', slug: 'magic', description: null });
    expect(await get(`/resource-tags/${tagId('magic')}`)).toEqual(bySlug);
    expectError(await t.app.inject({ method: 'GET', url: '/resource-tags/slug/no-such-tag' }), 404);
    expectError(
      await t.app.inject({ method: 'GET', url: '/resource-tags/01900000-0000-7000-8000-000000000000' }),
      404,
    );
  });

  it('ranks popular tags per resource type, with the per-type count and the aliases of the interface', async () => {
    for (const [type, tags] of [
      ['MOD', ['horror', 'medieval']],
      ['MOD', ['horror']],
      ['PLUGIN', ['medieval']],
      ['ASSET_PACK', ['cosmetic']],
    ] as const) {
      await createResource(t.app, user, { type, tagIds: tags.map(tagId) });
    }
    const mod = (await get('/resource-tags/popular/MOD?limit=2')) as { tags: Array<Record<string, unknown>> };
    expect(mod.tags.map((tag) => [tag['slug'], tag['usageCount'], tag['resourceType']])).toEqual([
      ['horror', 2, 'MOD'],
      ['medieval', 1, 'MOD'],
    ]);
    const tools = (await get('/resource-tags/popular/TOOLS_SCRIPTS')) as {
      tags: Array<Record<string, unknown>>;
    };
    expect(tools.tags.map((tag) => [tag['slug'], tag['usageCount'], tag['resourceType']])).toEqual([
      ['medieval', 1, 'PLUGIN'],
    ]);
    const texture = (await get('/resource-tags/popular/TEXTURE_PACK')) as {
      tags: Array<Record<string, unknown>>;
    };
    expect(texture.tags.map((tag) => tag['slug'])).toEqual(['cosmetic']);
    expect(((await get('/resource-tags/popular/WORLD')) as { tags: unknown[] }).tags).toEqual([]);
    expectError(await t.app.inject({ method: 'GET', url: '/resource-tags/popular/SHADER' }), 400);
  });

  it('moves usageCount with resource creation, tag changes and deletion', async () => {
    const usage = async () =>
      ((await get(`/resource-tags/${tagId('hardcore')}`)) as { usageCount: number }).usageCount;
    const before = await usage();
    const resource = await createResource(t.app, user, { tagIds: [tagId('hardcore')] });
    expect(await usage()).toBe(before + 1);
    await t.app.inject({
      method: 'PATCH',
      url: `/resources/${resource.id}`,
      headers: user.headers,
      payload: { tagIds: [] },
    });
    expect(await usage()).toBe(before);
    await t.app.inject({
      method: 'PATCH',
      url: `/resources/${resource.id}`,
      headers: user.headers,
      payload: { tagIds: [tagId('hardcore')] },
    });
    await t.app.inject({ method: 'DELETE', url: `/resources/${resource.id}`, headers: user.headers });
    expect(await usage()).toBe(before);
  });

  it('admins create, rename and delete tags; resources show the change at once', async () => {
    await expectAdminOnly('POST', '/resource-tags', { name: 'Nope', slug: 'nope-tag' });
    const created = await t.app.inject({
      method: 'POST',
      url: '/resource-tags',
      headers: admin.headers,
      payload: { name: 'Farming', slug: 'farming', description: 'Crops and animals' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const tag = created.json() as { id: string; usageCount: number; createdAt: string };
    expect(tag).toMatchObject({
      name: 'Farming',
      slug: 'farming',
      description: 'Crops and animals',
      usageCount: 0,
    });
    expectError(
      await t.app.inject({
        method: 'POST',
        url: '/resource-tags',
        headers: admin.headers,
        payload: { name: 'Again', slug: 'farming' },
      }),
      409,
      'SLUG_TAKEN',
    );
    const total = async () => ((await get('/resource-tags')) as { total: number }).total;
    const totalAfterCreate = await total();

    const resource = await createResource(t.app, user, { tagIds: [tag.id] });
    await expectAdminOnly('PATCH', `/resource-tags/${tag.id}`, { name: 'Nope' });
    const renamed = await t.app.inject({
      method: 'PATCH',
      url: `/resource-tags/${tag.id}`,
      headers: superAdmin.headers,
      payload: { name: 'Agriculture', slug: 'agriculture', description: null },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({
      name: 'Agriculture',
      slug: 'agriculture',
      description: null,
      usageCount: 1,
    });
    expect((await getResource(resource.id)).tags).toEqual([
      { id: tag.id, name: 'Agriculture', slug: 'agriculture' },
    ]);
    expectError(
      await t.app.inject({
        method: 'PATCH',
        url: `/resource-tags/${tag.id}`,
        headers: admin.headers,
        payload: { slug: 'magic' },
      }),
      409,
      'SLUG_TAKEN',
    );

    await expectAdminOnly('DELETE', `/resource-tags/${tag.id}`);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/resource-tags/${tag.id}`,
      headers: admin.headers,
    });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect((await getResource(resource.id)).tags).toEqual([]);
    expect(await total()).toBe(totalAfterCreate - 1);
    expectError(
      await t.app.inject({ method: 'DELETE', url: `/resource-tags/${tag.id}`, headers: admin.headers }),
      404,
    );
    expectError(
      await t.app.inject({
        method: 'PATCH',
        url: `/resource-tags/${tag.id}`,
        headers: admin.headers,
        payload: { name: 'x' },
      }),
      404,
    );
  });
});

describe('resource categories', () => {
  type Category = Catalogs['categories'][number];
  const categories = async (query = '') =>
    ((await get(`/resources/categories${query}`)) as { categories: Category[] }).categories;

  it('seeds categories for every resource type, listed by type and order', async () => {
    const all = await categories();
    const types = new Set(all.map((c) => c.resourceType));
    expect(types).toEqual(
      new Set(['MOD', 'PLUGIN', 'ASSET_PACK', 'DATA_PACK', 'WORLD', 'PREFAB', 'MODPACK', 'PREMADE_SERVER']),
    );
    const plugin = await categories('?type=PLUGIN');
    expect(plugin.every((c) => c.resourceType === 'PLUGIN')).toBe(true);
    expect(plugin.map((c) => c.order)).toEqual(plugin.map((_, i) => i));
    expect(plugin[0]).toMatchObject({ description: null, usageCount: 0 });
    expectError(await t.app.inject({ method: 'GET', url: '/resources/categories?type=SHADER' }), 400);
  });

  it('admins add, reorder, rename and delete categories; usage and resources follow', async () => {
    await expectAdminOnly('POST', '/resources/categories', {
      name: 'X',
      slug: 'x-cat',
      resourceType: 'WORLD',
    });
    const before = await categories('?type=WORLD');
    const created = await t.app.inject({
      method: 'POST',
      url: '/resources/categories',
      headers: admin.headers,
      payload: { name: 'Skyblock', slug: 'skyblock', resourceType: 'WORLD' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const category = created.json() as Category;
    expect(category).toMatchObject({ resourceType: 'WORLD', order: before.length, usageCount: 0 });
    // Slugs are unique per type only.
    expectError(
      await t.app.inject({
        method: 'POST',
        url: '/resources/categories',
        headers: admin.headers,
        payload: { name: 'Again', slug: 'skyblock', resourceType: 'WORLD' },
      }),
      409,
      'SLUG_TAKEN',
    );
    const elsewhere = await t.app.inject({
      method: 'POST',
      url: '/resources/categories',
      headers: admin.headers,
      payload: { name: 'Skyblock', slug: 'skyblock', resourceType: 'MODPACK', order: 0 },
    });
    expect(elsewhere.statusCode, elsewhere.body).toBe(201);

    const first = before[0]!;
    const resource = await createResource(t.app, user, {
      type: 'WORLD',
      categoryIds: [category.id, first.id],
    });
    expect(resource.categories.map((c) => c.id)).toEqual([first.id, category.id]);
    expect((await categories('?type=WORLD')).find((c) => c.id === category.id)?.usageCount).toBe(1);

    await expectAdminOnly('PATCH', `/resources/categories/${category.id}`, { order: 0 });
    const renamed = await t.app.inject({
      method: 'PATCH',
      url: `/resources/categories/${category.id}`,
      headers: admin.headers,
      payload: { name: 'Sky Islands' },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({ name: 'Sky Islands', slug: 'skyblock', order: before.length });
    // Moving the first category to the end changes the order resources show their categories in.
    const moved = await t.app.inject({
      method: 'PATCH',
      url: `/resources/categories/${first.id}`,
      headers: admin.headers,
      payload: { order: 1000 },
    });
    expect(moved.json()).toMatchObject({ order: 1000, resourceType: 'WORLD' });
    expect((await getResource(resource.id)).categories).toEqual([
      { id: category.id, name: 'Sky Islands', slug: 'skyblock' },
      { id: first.id, name: first.name, slug: first.slug },
    ]);

    await expectAdminOnly('DELETE', `/resources/categories/${category.id}`);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/resources/categories/${category.id}`,
      headers: admin.headers,
    });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect((await getResource(resource.id)).categories.map((c) => c.id)).toEqual([first.id]);
    expectError(
      await t.app.inject({
        method: 'DELETE',
        url: `/resources/categories/${category.id}`,
        headers: admin.headers,
      }),
      404,
    );
  });
});

describe('game versions', () => {
  type Version = Catalogs['gameVersions'][number] & { releasedAt: string | null; createdAt: string };
  const versions = async () => ((await get('/game-versions')) as { gameVersions: Version[] }).gameVersions;

  it('lists the seeded versions newest first', async () => {
    const list = await versions();
    expect(list.map((v) => v.name).slice(-5)).toEqual(['1.4', '1.3', '1.2', '1.1', '1.0']);
    const orders = list.map((v) => v.releaseOrder);
    expect(orders).toEqual([...orders].sort((a, b) => b - a));
  });

  it('admins add, rename and delete versions; resources and the list filter follow', async () => {
    await expectAdminOnly('POST', '/game-versions', { name: '9.9' });
    const created = await t.app.inject({
      method: 'POST',
      url: '/game-versions',
      headers: admin.headers,
      payload: { name: '2.0', releasedAt: '2026-03-01T00:00:00Z' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const version = created.json() as Version;
    expect(version).toMatchObject({ name: '2.0', releasedAt: '2026-03-01T00:00:00.000Z' });
    expect((await versions())[0]!.id).toBe(version.id);
    expectError(
      await t.app.inject({
        method: 'POST',
        url: '/game-versions',
        headers: admin.headers,
        payload: { name: '2.0' },
      }),
      409,
      'NAME_TAKEN',
    );

    const resource = await createResource(t.app, user, { gameVersionIds: [version.id] });
    const approve = await t.app.inject({
      method: 'PATCH',
      url: `/resources/moderation/${resource.id}/moderate`,
      headers: moderator.headers,
      payload: { action: 'APPROVE' },
    });
    expect(approve.statusCode).toBe(200);
    await expectAdminOnly('PATCH', `/game-versions/${version.id}`, { name: 'x' });
    const renamed = await t.app.inject({
      method: 'PATCH',
      url: `/game-versions/${version.id}`,
      headers: admin.headers,
      payload: { name: '2.0.1', releasedAt: null },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({ name: '2.0.1', releasedAt: null });
    expect((await getResource(resource.id)).gameVersions).toEqual([{ id: version.id, name: '2.0.1' }]);
    const filtered = (await get('/resources?versions=2.0.1')) as { resources: Array<{ id: string }> };
    expect(filtered.resources.map((r) => r.id)).toEqual([resource.id]);
    expectError(
      await t.app.inject({
        method: 'PATCH',
        url: `/game-versions/${version.id}`,
        headers: admin.headers,
        payload: { name: '1.0' },
      }),
      409,
      'NAME_TAKEN',
    );

    await expectAdminOnly('DELETE', `/game-versions/${version.id}`);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/game-versions/${version.id}`,
      headers: admin.headers,
    });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect((await getResource(resource.id)).gameVersions).toEqual([]);
    expectError(
      await t.app.inject({ method: 'DELETE', url: `/game-versions/${version.id}`, headers: admin.headers }),
      404,
    );
  });
});
