// GET /resources/feed.atom: newly approved resources, newest approval first, filtered like GET /resources; kept
// rendered, but never after a change the catalogue shows. Its own app: the feed spans every resource.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import { createResource, moderate, readCatalogs } from '../resources/helpers.js';
import type { Catalogs, ResourceBody } from '../resources/helpers.js';
import { PUBLIC_URL, approvedResource, links, readFeed, resourceLink } from './helpers.js';

let t: TestApp;
let owner: TestUser;
let moderator: TestUser;
let catalogs: Catalogs;
/** Approved in this order: late, mod, plugin (created in the order mod, plugin, late). */
let mod: ResourceBody & { approvedAt: string };
let plugin: ResourceBody & { approvedAt: string };
let late: ResourceBody & { approvedAt: string };

const tagId = (slug: string) => catalogs.tags.find((tag) => tag.slug === slug)!.id;
const categoryOf = (type: string, index = 0) =>
  catalogs.categories.filter((category) => category.resourceType === type)[index]!;

beforeAll(async () => {
  t = await buildTestApp();
  owner = await createUser(t.app);
  moderator = await createUser(t.app, { role: 'MODERATOR' });
  catalogs = await readCatalogs(t.app);
  const actors = { owner, moderator };
  // Created first, approved last but one: the feed orders by approval time, not by creation.
  t.clock.advance(1000);
  const lateDraft = await createResource(t.app, owner, { name: 'Late Lanterns', type: 'MOD' });
  mod = await approvedResource(t.app, t.clock, actors, {
    name: 'Magic Mills',
    type: 'MOD',
    tagIds: [tagId('magic'), tagId('technology')],
    categoryIds: [categoryOf('MOD').id],
  });
  plugin = await approvedResource(t.app, t.clock, actors, {
    name: 'Economy Engine',
    type: 'PLUGIN',
    tagIds: [tagId('economy')],
    categoryIds: [categoryOf('PLUGIN').id],
  });
  t.clock.advance(1000);
  late = {
    ...(await moderate(t.app, moderator, lateDraft.id, 'APPROVE')),
    approvedAt: t.clock.now().toISOString(),
  };
  // Never in the feed.
  await createResource(t.app, owner, { name: 'Hidden pending', type: 'MOD', tagIds: [tagId('magic')] });
  const rejected = await createResource(t.app, owner, { name: 'Hidden rejected', type: 'MOD' });
  await moderate(t.app, moderator, rejected.id, 'REJECT', 'No');
  const suspended = await approvedResource(t.app, t.clock, actors, { name: 'Hidden suspended', type: 'MOD' });
  await moderate(t.app, moderator, suspended.id, 'SUSPEND', 'Stolen');
});
afterAll(async () => t.close());

describe('GET /resources/feed.atom', () => {
  it('lists APPROVED resources, newest approval first, linked under PUBLIC_URL', async () => {
    const { feed, response } = await readFeed(t.app, '/resources/feed.atom');
    expect(feed.title).toBe('Newly approved resources');
    expect(feed.url).toBe(`${PUBLIC_URL}/resources`);
    expect(links(feed)).toEqual([resourceLink(late.id), resourceLink(plugin.id), resourceLink(mod.id)]);
    expect(feed.items.map((item) => item.published?.toISOString())).toEqual([
      late.approvedAt,
      plugin.approvedAt,
      mod.approvedAt,
    ]);
    expect(feed.updated?.toISOString()).toBe(late.approvedAt);
    expect(feed.items[1]!.authors[0]).toMatchObject({
      name: owner.username,
      url: `${PUBLIC_URL}/users/${owner.id}`,
    });
    expect(feed.items[1]!.categories.map((category) => category.term)).toEqual([
      'PLUGIN',
      categoryOf('PLUGIN').slug,
      'economy',
    ]);
    expect(response.body).not.toContain('Hidden');
  });

  it('is not taken for a resource id: the static path wins over /resources/:id', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/resources/feed.atom' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/atom+xml; charset=utf-8');
  });

  it('filters by type, tags and categories as GET /resources does', async () => {
    const feedOf = async (query: string) =>
      links((await readFeed(t.app, `/resources/feed.atom?${query}`)).feed);
    expect(await feedOf('type=PLUGIN')).toEqual([resourceLink(plugin.id)]);
    expect(await feedOf('type=MOD')).toEqual([resourceLink(late.id), resourceLink(mod.id)]);
    expect(await feedOf('tags=magic')).toEqual([resourceLink(mod.id)]);
    expect(await feedOf(`tags=${tagId('economy')}`)).toEqual([resourceLink(plugin.id)]);
    // Any of the values within a filter, all filters together.
    expect(await feedOf('tags=magic,economy')).toEqual([resourceLink(plugin.id), resourceLink(mod.id)]);
    expect(await feedOf('tags=economy&tags=magic')).toEqual([resourceLink(plugin.id), resourceLink(mod.id)]);
    expect(await feedOf('type=MOD&tags=magic,economy')).toEqual([resourceLink(mod.id)]);
    expect(await feedOf(`categories=${categoryOf('MOD').slug}`)).toEqual([resourceLink(mod.id)]);
    expect(await feedOf(`categories=${categoryOf('PLUGIN').id}&type=PLUGIN`)).toEqual([
      resourceLink(plugin.id),
    ]);
    expect(await feedOf(`categories=${categoryOf('PLUGIN').id}&type=MOD`)).toEqual([]);
    // Values that name nothing match nothing.
    expect(await feedOf('tags=no-such-tag')).toEqual([]);
    expect(await feedOf('categories=no-such-category')).toEqual([]);
  });

  it('names its filters in the title and in a canonical self link', async () => {
    const { feed } = await readFeed(t.app, '/resources/feed.atom?tags=technology&type=MOD&tags=magic');
    expect(feed.self).toBe(`${PUBLIC_URL}/resources/feed.atom?type=MOD&tags=magic%2Ctechnology`);
    expect(feed.title).toBe('Newly approved resources (type MOD; tags magic, technology)');
  });

  it('rejects an unknown type and malformed filters with 400', async () => {
    expectError(await t.app.inject({ method: 'GET', url: '/resources/feed.atom?type=SPACESHIP' }), 400);
    const tooMany = Array.from({ length: 51 }, (_, i) => `tag-${i}`).join(',');
    expectError(await t.app.inject({ method: 'GET', url: `/resources/feed.atom?tags=${tooMany}` }), 400);
  });

  it('is the same document for signed-in callers', async () => {
    const anonymous = await readFeed(t.app, '/resources/feed.atom');
    for (const user of [owner, moderator]) {
      const signedIn = await readFeed(t.app, '/resources/feed.atom', user.headers);
      expect(signedIn.response.body).toBe(anonymous.response.body);
    }
  });

  it('keeps a resource at its first approval: edits update it, a suspension and reinstatement do not renew it', async () => {
    t.clock.advance(1000);
    const edited = await t.app.inject({
      method: 'PATCH',
      url: `/resources/${mod.id}`,
      headers: owner.headers,
      payload: { shortDescription: 'Now with windmills' },
    });
    expect(edited.statusCode, edited.body).toBe(200);
    const editedAt = t.clock.now().toISOString();
    await moderate(t.app, moderator, mod.id, 'SUSPEND', 'Check');
    expect(links((await readFeed(t.app, '/resources/feed.atom')).feed)).not.toContain(resourceLink(mod.id));
    t.clock.advance(1000);
    await moderate(t.app, moderator, mod.id, 'UNSUSPEND');

    const { feed } = await readFeed(t.app, '/resources/feed.atom');
    expect(links(feed)).toEqual([resourceLink(late.id), resourceLink(plugin.id), resourceLink(mod.id)]);
    const entry = feed.items[2]!;
    expect(entry.published?.toISOString()).toBe(mod.approvedAt);
    expect(entry.updated?.toISOString()).toBe(editedAt);
    expect(entry.description).toBe('Now with windmills');
  });

  it('shows a new approval at once, and answers If-None-Match with 304 while nothing changed', async () => {
    const first = await readFeed(t.app, '/resources/feed.atom?type=WORLD');
    expect(first.feed.items).toEqual([]);
    const etag = first.response.headers['etag'] as string;
    t.clock.advance(120_000);
    const unchanged = await t.app.inject({
      method: 'GET',
      url: '/resources/feed.atom?type=WORLD',
      headers: { 'if-none-match': etag },
    });
    expect(unchanged.statusCode).toBe(304);

    // Within the 60 seconds a rendered feed is kept: the approval still shows at once.
    const world = await approvedResource(
      t.app,
      t.clock,
      { owner, moderator },
      { name: 'World One', type: 'WORLD' },
    );
    const changed = await t.app.inject({
      method: 'GET',
      url: '/resources/feed.atom?type=WORLD',
      headers: { 'if-none-match': etag },
    });
    expect(changed.statusCode).toBe(200);
    const { feed, response } = await readFeed(t.app, '/resources/feed.atom?type=WORLD');
    expect(links(feed)).toEqual([resourceLink(world.id)]);
    const again = await t.app.inject({
      method: 'GET',
      url: '/resources/feed.atom?type=WORLD',
      headers: { 'if-none-match': response.headers['etag'] as string },
    });
    expect(again.statusCode).toBe(304);
  });

  it('keeps the 50 newest approvals', async () => {
    const approved: string[] = [];
    for (let i = 0; i < 51; i++) {
      const resource = await approvedResource(t.app, t.clock, { owner, moderator }, { type: 'PREFAB' });
      approved.push(resourceLink(resource.id));
    }
    const { feed } = await readFeed(t.app, '/resources/feed.atom?type=PREFAB');
    expect(links(feed)).toEqual(approved.slice(1).reverse());
    const all = await readFeed(t.app, '/resources/feed.atom');
    expect(links(all.feed)).toEqual(approved.slice(1).reverse());
  });
});
