// Server tags and categories: the seeded catalogs, public reads, admin writes, and usageCount.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import {
  createApprovedServer,
  createServer,
  expectServerInvariants,
  getServer,
  moderate,
} from './helpers.js';

interface Tag {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  usageCount: number;
  createdAt: string;
}
interface Category extends Tag {
  iconUrl: string | null;
  order: number;
}

let t: TestApp;
let p: Personas;

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
});
afterAll(async () => t.close());
afterEach(async () => expectServerInvariants(t.app));

const get = (url: string) => t.app.inject({ method: 'GET', url });
const tags = async (query = '') =>
  (await get(`/server-tags${query}`)).json() as { tags: Tag[]; total: number; meta: unknown };
const categories = async () =>
  ((await get('/server-categories')).json() as { categories: Category[] }).categories;
const write = (method: 'POST' | 'PATCH' | 'DELETE', url: string, by: TestUser | null, payload?: object) =>
  t.app.inject({ method, url, ...(by ? { headers: by.headers } : {}), ...(payload ? { payload } : {}) });

let slugSequence = 0;
const slug = (prefix: string) => `${prefix}-${process.pid}-${++slugSequence}`;

describe('seeded catalogs', () => {
  it('has default tags, listed by name, with the counter total', async () => {
    const body = await tags();
    expect(body.total).toBe(body.tags.length);
    expect(body.tags.length).toBeGreaterThanOrEqual(10);
    expect(body.tags.map((tag) => tag.slug)).toContain('pve');
    const sortedNames = [...body.tags.map((tag) => tag.name)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(body.tags.map((tag) => tag.name)).toEqual(sortedNames);
    expect(body.meta).toEqual({ total: body.total, limit: 100, offset: 0 });
    expect(body.tags[0]).toEqual({
      id: expect.any(String),
      name: expect.any(String),
      slug: expect.any(String),
      description: expect.any(String),
      usageCount: 0,
      createdAt: expect.any(String),
    });
  });

  it('has default categories, by order then name', async () => {
    const list = await categories();
    expect(list.length).toBeGreaterThanOrEqual(6);
    expect(list.map((category) => category.order)).toEqual(
      [...list.map((c) => c.order)].sort((a, b) => a - b),
    );
    expect(list[0]).toMatchObject({ slug: 'survival', order: 0, iconUrl: null, usageCount: 0 });
  });
});

describe('GET /server-tags', () => {
  it('searches names case-insensitively; total then counts the matches', async () => {
    const body = await tags('?search=SKY');
    expect(body.tags.map((tag) => tag.slug)).toEqual(['skyblock']);
    expect(body.total).toBe(1);
    expect((await tags('?search=%25')).tags).toEqual([]);
  });

  it('pages with limit and offset (limit at most 100)', async () => {
    const all = await tags();
    const page = await tags('?limit=2&offset=1');
    expect(page.tags.map((tag) => tag.id)).toEqual(all.tags.slice(1, 3).map((tag) => tag.id));
    expect(page.total).toBe(all.total);
    expectError(await get('/server-tags?limit=101'), 400, 'INVALID_REQUEST');
  });
});

describe('GET /server-tags/search and /popular', () => {
  it('autocompletes: q required, most used first, {id, name, slug, usageCount}, default limit 10', async () => {
    expectError(await get('/server-tags/search'), 400, 'INVALID_REQUEST');
    expectError(await get('/server-tags/search?q='), 400, 'INVALID_REQUEST');
    const server = await createApprovedServer(t.app, p.user, p.moderator, {
      tagIds: [(await tags('?search=quests')).tags[0]!.id],
    });
    const body = (await get('/server-tags/search?q=e')).json() as { tags: Array<Record<string, unknown>> };
    expect(body.tags.length).toBeLessThanOrEqual(10);
    expect(body.tags[0]).toEqual({ id: expect.any(String), name: 'Quests', slug: 'quests', usageCount: 1 });
    const limited = (await get('/server-tags/search?q=e&limit=2')).json() as { tags: unknown[] };
    expect(limited.tags).toHaveLength(2);
    await write('DELETE', `/servers/${server.id}`, p.user);
  });

  it('ranks popular tags by APPROVED servers carrying them, default limit 20', async () => {
    const [parkour, dungeons] = [
      (await tags('?search=parkour')).tags[0]!,
      (await tags('?search=dungeons')).tags[0]!,
    ];
    const a = await createApprovedServer(t.app, p.user, p.moderator, { tagIds: [parkour.id, dungeons.id] });
    const b = await createApprovedServer(t.app, p.user, p.moderator, { tagIds: [dungeons.id] });
    // A pending server counts for nothing.
    const c = await createServer(t.app, p.user, { tagIds: [parkour.id] });
    const popular = ((await get('/server-tags/popular')).json() as { tags: Tag[] }).tags;
    expect(popular.slice(0, 2).map((tag) => [tag.slug, tag.usageCount])).toEqual([
      ['dungeons', 2],
      ['parkour', 1],
    ]);
    expect(popular.length).toBeLessThanOrEqual(20);
    expect(((await get('/server-tags/popular?limit=1')).json() as { tags: Tag[] }).tags).toHaveLength(1);
    for (const server of [a, b, c]) await write('DELETE', `/servers/${server.id}`, p.user);
    expect(((await get('/server-tags/dungeons')).json() as Tag).usageCount).toBe(0);
  });
});

describe('GET /server-tags/:slug and /server-categories/:slug', () => {
  it('reads one by slug; unknown is 404', async () => {
    expect((await get('/server-tags/factions')).json()).toMatchObject({ slug: 'factions', name: 'Factions' });
    expect((await get('/server-categories/pvp')).json()).toMatchObject({ slug: 'pvp', name: 'PvP' });
    expectError(await get('/server-tags/nope'), 404, 'NOT_FOUND');
    expectError(await get('/server-categories/nope'), 404, 'NOT_FOUND');
  });
});

describe('usageCount', () => {
  it('counts APPROVED servers only, following edits, moderation and deletion', async () => {
    const category = (await categories()).find((c) => c.slug === 'roleplay')!;
    const use = async () => ((await get('/server-categories/roleplay')).json() as Category).usageCount;
    const server = await createServer(t.app, p.user, { categoryIds: [category.id] });
    expect(await use()).toBe(0);
    await moderate(t.app, p.moderator, server.id, 'approve');
    expect(await use()).toBe(1);
    await write('PATCH', `/servers/${server.id}`, p.user, { categoryIds: [] });
    expect(await use()).toBe(0);
    await write('PATCH', `/servers/${server.id}`, p.user, { categoryIds: [category.id] });
    expect(await use()).toBe(1);
    await moderate(t.app, p.moderator, server.id, 'suspend');
    expect(await use()).toBe(0);
    await moderate(t.app, p.moderator, server.id, 'approve');
    await write('DELETE', `/servers/${server.id}`, p.user);
    expect(await use()).toBe(0);
  });
});

describe('admin writes', () => {
  it('creates, edits and deletes a tag; the tag total follows', async () => {
    const before = (await tags()).total;
    const created = await write('POST', '/server-tags', p.admin, {
      name: ' Speedrun ',
      slug: slug('speedrun'),
    });
    expect(created.statusCode, created.body).toBe(201);
    const tag = created.json() as Tag;
    expect(tag).toMatchObject({
      name: 'Speedrun',
      description: null,
      usageCount: 0,
      createdAt: t.clock.now().toISOString(),
    });
    expect((await tags()).total).toBe(before + 1);
    const edited = await write('PATCH', `/server-tags/${tag.id}`, p.superAdmin, {
      name: 'Speedrunning',
      description: 'Fast',
      slug: 'ignored',
    });
    expect(edited.json()).toMatchObject({
      id: tag.id,
      name: 'Speedrunning',
      description: 'Fast',
      slug: tag.slug,
    });
    const server = await createApprovedServer(t.app, p.user, p.moderator, { tagIds: [tag.id] });
    const deleted = await write('DELETE', `/server-tags/${tag.id}`, p.admin);
    expect(deleted.statusCode).toBe(204);
    expect((await tags()).total).toBe(before);
    expectError(await get(`/server-tags/${tag.slug}`), 404);
    // The server simply loses the tag.
    expect((await getServer(t.app, server.slug)).tags).toEqual([]);
  });

  it('creates, edits and deletes a category; order defaults to after the last one', async () => {
    const last = Math.max(...(await categories()).map((c) => c.order));
    const created = await write('POST', '/server-categories', p.admin, {
      name: 'Anarchy',
      slug: slug('anarchy'),
      description: 'No rules',
      iconUrl: 'https://cdn.example/anarchy.png',
    });
    expect(created.statusCode, created.body).toBe(201);
    const category = created.json() as Category;
    expect(category).toMatchObject({
      name: 'Anarchy',
      order: last + 1,
      iconUrl: 'https://cdn.example/anarchy.png',
    });
    const edited = await write('PATCH', `/server-categories/${category.id}`, p.admin, {
      order: 0,
      iconUrl: null,
    });
    expect(edited.json()).toMatchObject({ order: 0, iconUrl: null, name: 'Anarchy' });
    const list = await categories();
    // Order 0 ties with Survival and wins by name.
    expect(list[0]!.slug).toBe(category.slug);
    const server = await createApprovedServer(t.app, p.user, p.moderator, { categoryIds: [category.id] });
    expect((await write('DELETE', `/server-categories/${category.id}`, p.admin)).statusCode).toBe(204);
    expect((await getServer(t.app, server.slug)).categories).toEqual([]);
    expectError(await write('DELETE', `/server-categories/${category.id}`, p.admin), 404);
  });

  it('takes an explicit order on create', async () => {
    const created = await write('POST', '/server-categories', p.admin, {
      name: 'Late',
      slug: slug('late'),
      order: 500,
    });
    expect(created.json()).toMatchObject({ order: 500 });
  });

  it('refuses taken and reserved slugs (409 SLUG_TAKEN)', async () => {
    expectError(
      await write('POST', '/server-tags', p.admin, { name: 'PvE', slug: 'pve' }),
      409,
      'SLUG_TAKEN',
    );
    for (const reserved of ['search', 'popular']) {
      expectError(
        await write('POST', '/server-tags', p.admin, { name: 'X', slug: reserved }),
        409,
        'SLUG_TAKEN',
      );
    }
    expectError(
      await write('POST', '/server-categories', p.admin, { name: 'Dup', slug: 'survival' }),
      409,
      'SLUG_TAKEN',
    );
  });

  it.each([
    ['POST', '/server-tags', { name: 'X', slug: 'bad slug' }],
    ['POST', '/server-tags', { slug: 'no-name' }],
    ['POST', '/server-categories', { name: 'X', slug: 'icon-bad', iconUrl: 'ftp://x' }],
    ['POST', '/server-categories', { name: 'X', slug: 'order-bad', order: -1 }],
  ] as const)('%s %s rejects an invalid body (400)', async (method, url, payload) => {
    expectError(await write(method, url, p.admin, payload), 400, 'INVALID_REQUEST');
  });

  it('is for admins: 401 anonymous, 403 users and moderators, 404 unknown ids', async () => {
    const tag = (await tags()).tags[0]!;
    const category = (await categories())[0]!;
    const attempts: Array<['POST' | 'PATCH' | 'DELETE', string, object?]> = [
      ['POST', '/server-tags', { name: 'X', slug: slug('x') }],
      ['PATCH', `/server-tags/${tag.id}`, { name: 'X' }],
      ['DELETE', `/server-tags/${tag.id}`],
      ['POST', '/server-categories', { name: 'X', slug: slug('x') }],
      ['PATCH', `/server-categories/${category.id}`, { name: 'X' }],
      ['DELETE', `/server-categories/${category.id}`],
    ];
    for (const [method, url, payload] of attempts) {
      expectError(await write(method, url, null, payload), 401, 'UNAUTHORIZED');
      expectError(await write(method, url, p.user, payload), 403, 'FORBIDDEN');
      expectError(await write(method, url, p.moderator, payload), 403, 'FORBIDDEN');
    }
    const unknown = '01900000-0000-7000-8000-000000000000';
    expectError(await write('PATCH', `/server-tags/${unknown}`, p.admin, { name: 'X' }), 404);
    expectError(await write('DELETE', `/server-tags/${unknown}`, p.admin), 404);
    expectError(await write('PATCH', `/server-categories/${unknown}`, p.admin, { name: 'X' }), 404);
    expect((await get(`/server-tags/${tag.slug}`)).json()).toMatchObject({ name: tag.name });
  });
});
