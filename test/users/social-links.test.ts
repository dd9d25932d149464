// Profile social links (DESIGN §8 "Social", §11): platforms, http(s) URLs, at most 10, gapless order, exact
// reorders, and ownership (another user's link is 404).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';

const PLATFORMS = [
  'MICROBLOG',
  'VIDEO_SHARING',
  'LIVE_STREAMING',
  'CODE_HOSTING',
  'CHAT_COMMUNITY',
  'WEBSITE',
  'OTHER',
] as const;
const BASE = '/users/me/social-links';

interface Link {
  id: string;
  platform: string;
  url: string;
  order: number;
}

describe('profile social links', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => t.close());

  const create = (user: TestUser | null, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: BASE, headers: user?.headers ?? {}, payload });
  const update = (user: TestUser | null, linkId: string, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'PATCH', url: `${BASE}/${linkId}`, headers: user?.headers ?? {}, payload });
  const remove = (user: TestUser | null, linkId: string) =>
    t.app.inject({ method: 'DELETE', url: `${BASE}/${linkId}`, headers: user?.headers ?? {} });
  const reorder = (user: TestUser | null, linkIds: unknown) =>
    t.app.inject({
      method: 'PATCH',
      url: `${BASE}/reorder`,
      headers: user?.headers ?? {},
      payload: { linkIds },
    });

  async function links(user: TestUser): Promise<Link[]> {
    const res = await t.app.inject({ method: 'GET', url: BASE, headers: user.headers });
    expect(res.statusCode, res.body).toBe(200);
    expect(Object.keys(res.json())).toEqual(['socialLinks']);
    return res.json().socialLinks as Link[];
  }

  async function withLinks(count: number): Promise<{ user: TestUser; created: Link[] }> {
    const user = await createUser(t.app);
    const created: Link[] = [];
    for (let i = 0; i < count; i++) {
      const res = await create(user, {
        platform: PLATFORMS[i % PLATFORMS.length],
        url: `https://example.test/${i}`,
      });
      expect(res.statusCode, res.body).toBe(201);
      created.push(res.json() as Link);
    }
    return { user, created };
  }

  const ids = (list: Link[]) => list.map((link) => link.id);
  const orders = (list: Link[]) => list.map((link) => link.order);

  describe('create and list', () => {
    it('creates links: 201 {id, platform, url, order} with order 0, 1, 2 …', async () => {
      const user = await createUser(t.app);
      const res = await create(user, { platform: 'CODE_HOSTING', url: 'https://code.example/me' });
      expect(res.statusCode, res.body).toBe(201);
      const first = res.json() as Link;
      expect(Object.keys(first).sort()).toEqual(['id', 'order', 'platform', 'url']);
      expect(first).toMatchObject({ platform: 'CODE_HOSTING', url: 'https://code.example/me', order: 0 });
      const second = (
        await create(user, { platform: 'WEBSITE', url: 'http://plain.example' })
      ).json() as Link;
      const third = (await create(user, { platform: 'OTHER', url: 'https://other.example' })).json() as Link;
      expect([second.order, third.order]).toEqual([1, 2]);
      expect(await links(user)).toEqual([first, second, third]);
    });

    it('starts empty', async () => {
      expect(await links(await createUser(t.app))).toEqual([]);
    });

    it.each(PLATFORMS)('accepts platform %s', async (platform) => {
      const user = await createUser(t.app);
      const res = await create(user, { platform, url: 'https://example.test' });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().platform).toBe(platform);
    });

    it.each([
      ['an unknown platform', { platform: 'MYSPACE', url: 'https://example.test' }, 'platform'],
      ['a lower-case platform', { platform: 'website', url: 'https://example.test' }, 'platform'],
      ['a missing platform', { url: 'https://example.test' }, 'platform'],
      ['a javascript: url', { platform: 'WEBSITE', url: 'javascript:alert(1)' }, 'url'],
      ['an ftp url', { platform: 'WEBSITE', url: 'ftp://x' }, 'url'],
      ['a data: url', { platform: 'WEBSITE', url: 'data:text/html,<b>x</b>' }, 'url'],
      ['a relative url', { platform: 'WEBSITE', url: '/just/a/path' }, 'url'],
      [
        'a url over 2048 characters',
        { platform: 'WEBSITE', url: `https://e.test/${'a'.repeat(2048)}` },
        'url',
      ],
      ['a missing url', { platform: 'WEBSITE' }, 'url'],
    ])('answers 400 for %s', async (_label, payload, field) => {
      const user = await createUser(t.app);
      const body = expectError(await create(user, payload), 400, 'INVALID_REQUEST');
      expect(Object.keys((body.details as { fields: object }).fields).join(',')).toContain(field);
      expect(await links(user)).toEqual([]);
    });

    it('allows 10 links; the 11th is 409 LIMIT_REACHED', async () => {
      const { user } = await withLinks(10);
      expectError(
        await create(user, { platform: 'OTHER', url: 'https://eleven.example' }),
        409,
        'LIMIT_REACHED',
      );
      const list = await links(user);
      expect(list).toHaveLength(10);
      expect(orders(list)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    });

    it('gives parallel creations distinct, gapless orders', async () => {
      const user = await createUser(t.app);
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          create(user, { platform: 'WEBSITE', url: `https://parallel.example/${i}` }),
        ),
      );
      for (const res of results) expect(res.statusCode, res.body).toBe(201);
      expect(results.map((res) => (res.json() as Link).order).sort((a, b) => a - b)).toEqual([
        0, 1, 2, 3, 4, 5,
      ]);
      expect(orders(await links(user))).toEqual([0, 1, 2, 3, 4, 5]);
    });

    it('never exceeds 10 links when creations race at the limit', async () => {
      const { user } = await withLinks(9);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          create(user, { platform: 'OTHER', url: `https://race.example/${i}` }),
        ),
      );
      expect(results.filter((res) => res.statusCode === 201)).toHaveLength(1);
      for (const res of results.filter((r) => r.statusCode !== 201)) expectError(res, 409, 'LIMIT_REACHED');
      expect(orders(await links(user))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    });

    it('frees a slot when a link is deleted', async () => {
      const { user, created } = await withLinks(10);
      expect((await remove(user, created[3]!.id)).statusCode).toBe(204);
      const res = await create(user, { platform: 'OTHER', url: 'https://again.example' });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().order).toBe(9);
    });
  });

  describe('update', () => {
    it('changes platform and url', async () => {
      const { user, created } = await withLinks(2);
      const res = await update(user, created[1]!.id, {
        platform: 'LIVE_STREAMING',
        url: 'https://live.example/me',
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        id: created[1]!.id,
        platform: 'LIVE_STREAMING',
        url: 'https://live.example/me',
        order: 1,
      });
      expect(await links(user)).toEqual([created[0], res.json()]);
    });

    it('changes only the field sent', async () => {
      const { user, created } = await withLinks(1);
      const res = await update(user, created[0]!.id, { url: 'https://only-url.example' });
      expect(res.json()).toMatchObject({ platform: created[0]!.platform, url: 'https://only-url.example' });
      const again = await update(user, created[0]!.id, { platform: 'MICROBLOG' });
      expect(again.json()).toMatchObject({ platform: 'MICROBLOG', url: 'https://only-url.example' });
    });

    it.each([
      ['an unknown platform', { platform: 'FAX' }],
      ['a javascript: url', { url: 'javascript:alert(1)' }],
      ['an ftp url', { url: 'ftp://x' }],
    ])('answers 400 for %s, changing nothing', async (_label, payload) => {
      const { user, created } = await withLinks(1);
      expectError(await update(user, created[0]!.id, payload), 400, 'INVALID_REQUEST');
      expect(await links(user)).toEqual(created);
    });

    it('answers 404 for another user’s link, which stays unchanged', async () => {
      const owner = await withLinks(1);
      const intruder = await createUser(t.app);
      expectError(
        await update(intruder, owner.created[0]!.id, { url: 'https://hijack.example' }),
        404,
        'NOT_FOUND',
      );
      expect(await links(owner.user)).toEqual(owner.created);
    });

    it('answers 404 for an unknown link id', async () => {
      const user = await createUser(t.app);
      expectError(await update(user, 'no-such-link', { url: 'https://x.example' }), 404, 'NOT_FOUND');
    });
  });

  describe('delete', () => {
    it('deletes a link (204) and keeps the order gapless from 0', async () => {
      const { user, created } = await withLinks(4);
      const res = await remove(user, created[1]!.id);
      expect(res.statusCode, res.body).toBe(204);
      const list = await links(user);
      expect(ids(list)).toEqual([created[0]!.id, created[2]!.id, created[3]!.id]);
      expect(orders(list)).toEqual([0, 1, 2]);

      expect((await remove(user, created[0]!.id)).statusCode).toBe(204);
      const after = await links(user);
      expect(ids(after)).toEqual([created[2]!.id, created[3]!.id]);
      expect(orders(after)).toEqual([0, 1]);
      expectError(await remove(user, created[0]!.id), 404, 'NOT_FOUND');
    });

    it('answers 404 for another user’s link, which stays', async () => {
      const owner = await withLinks(2);
      const intruder = await createUser(t.app);
      expectError(await remove(intruder, owner.created[0]!.id), 404, 'NOT_FOUND');
      expect(await links(owner.user)).toEqual(owner.created);
    });
  });

  describe('reorder', () => {
    it('reorders with exactly the existing ids: 200 {message, socialLinks} in the new order', async () => {
      const { user, created } = await withLinks(3);
      const wanted = [created[2]!.id, created[0]!.id, created[1]!.id];
      const res = await reorder(user, wanted);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as { message: string; socialLinks: Link[] };
      expect(typeof body.message).toBe('string');
      expect(ids(body.socialLinks)).toEqual(wanted);
      expect(orders(body.socialLinks)).toEqual([0, 1, 2]);
      expect(body.socialLinks[0]).toMatchObject({ platform: created[2]!.platform, url: created[2]!.url });
      const list = await links(user);
      expect(ids(list)).toEqual(wanted);
      expect(orders(list)).toEqual([0, 1, 2]);
    });

    it('shows the new order in the public profile', async () => {
      const { user, created } = await withLinks(3);
      const wanted = [created[1]!.id, created[2]!.id, created[0]!.id];
      expect((await reorder(user, wanted)).statusCode).toBe(200);
      const profile = (await t.app.inject({ method: 'GET', url: `/users/${user.id}` })).json();
      expect(ids(profile.socialLinks as Link[])).toEqual(wanted);
      expect(orders(profile.socialLinks as Link[])).toEqual([0, 1, 2]);
    });

    it('accepts an empty list when there are no links', async () => {
      const user = await createUser(t.app);
      const res = await reorder(user, []);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().socialLinks).toEqual([]);
    });

    it.each([
      ['a missing id', (c: Link[]) => [c[1]!.id, c[0]!.id]],
      ['an extra unknown id', (c: Link[]) => [c[2]!.id, c[1]!.id, c[0]!.id, 'unknown-id']],
      ['an unknown id in place of one', (c: Link[]) => [c[2]!.id, c[1]!.id, 'unknown-id']],
      ['a duplicate', (c: Link[]) => [c[2]!.id, c[2]!.id, c[1]!.id, c[0]!.id]],
      ['a duplicate replacing one', (c: Link[]) => [c[2]!.id, c[2]!.id, c[1]!.id]],
      ['no ids', () => []],
    ])('answers 400 for %s and keeps the order', async (_label, build) => {
      const { user, created } = await withLinks(3);
      expectError(await reorder(user, build(created)), 400, 'INVALID_REQUEST');
      expect(await links(user)).toEqual(created);
    });

    it('answers 400 for another user’s link id', async () => {
      const { user, created } = await withLinks(2);
      const other = await withLinks(1);
      const res = await reorder(user, [created[1]!.id, other.created[0]!.id]);
      expectError(res, 400, 'INVALID_REQUEST');
      expect(await links(user)).toEqual(created);
      expect(await links(other.user)).toEqual(other.created);
    });

    it('answers 400 for a body without linkIds', async () => {
      const { user } = await withLinks(1);
      const res = await t.app.inject({
        method: 'PATCH',
        url: `${BASE}/reorder`,
        headers: user.headers,
        payload: {},
      });
      expectError(res, 400, 'INVALID_REQUEST');
    });
  });

  it('answers 401 to anonymous callers on every endpoint', async () => {
    const { created } = await withLinks(1);
    const id = created[0]!.id;
    expectError(await t.app.inject({ method: 'GET', url: BASE }), 401, 'UNAUTHORIZED');
    expectError(await create(null, { platform: 'WEBSITE', url: 'https://x.example' }), 401, 'UNAUTHORIZED');
    expectError(await update(null, id, { url: 'https://x.example' }), 401, 'UNAUTHORIZED');
    expectError(await remove(null, id), 401, 'UNAUTHORIZED');
    expectError(await reorder(null, [id]), 401, 'UNAUTHORIZED');
  });
});
