// Profiles (interface "Users"): the private profile, editing it, public profiles by id and username, search.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas, createUser } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';

const PUBLIC_FIELDS = [
  'id',
  'username',
  'displayName',
  'bio',
  'image',
  'bannerUrl',
  'badges',
  'socialLinks',
  'followerCount',
  'followingCount',
  'isFollowing',
  'createdAt',
];
const PRIVATE_FIELDS = [
  'id',
  'username',
  'displayName',
  'email',
  'bio',
  'image',
  'bannerUrl',
  'role',
  'badges',
  'createdAt',
];

describe('user profiles', () => {
  let t: TestApp;
  let p: Personas;
  let defaultAvatar: string;
  let counter = 0;

  beforeAll(async () => {
    t = await buildTestApp();
    p = await createPersonas(t.app);
    defaultAvatar = (await me(p.user)).json().image as string;
  });
  afterAll(async () => t.close());

  /** A short token unique to this run, made of letters only so it never contains LIKE wildcards. */
  const token = () => {
    counter += 1;
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    let out = 'q';
    for (let n = process.pid * 100 + counter; n > 0; n = Math.floor(n / 26)) out += letters[n % 26];
    return out;
  };

  function me(user: TestUser) {
    return t.app.inject({ method: 'GET', url: '/users/me', headers: user.headers });
  }
  const patchMe = (user: TestUser, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'PATCH', url: '/users/me', headers: user.headers, payload });
  const publicById = (id: string, viewer?: TestUser) =>
    t.app.inject({ method: 'GET', url: `/users/${id}`, headers: viewer?.headers ?? {} });
  const publicByName = (username: string, viewer?: TestUser) =>
    t.app.inject({ method: 'GET', url: `/users/username/${username}`, headers: viewer?.headers ?? {} });
  const search = (query: string, viewer: TestUser | null = p.user) =>
    t.app.inject({ method: 'GET', url: `/users/search?${query}`, headers: viewer?.headers ?? {} });
  const follow = (follower: TestUser, target: TestUser) =>
    t.app.inject({ method: 'POST', url: `/users/${target.id}/follow`, headers: follower.headers });

  describe('GET /users/me', () => {
    it('answers 401 to anonymous callers', async () => {
      expectError(await t.app.inject({ method: 'GET', url: '/users/me' }), 401, 'UNAUTHORIZED');
    });

    it('returns the private profile with defaults', async () => {
      const user = await createUser(t.app);
      const res = await me(user);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      for (const field of PRIVATE_FIELDS) expect(body).toHaveProperty(field);
      expect(body).toMatchObject({
        id: user.id,
        username: user.username,
        displayName: null,
        email: user.email,
        bio: null,
        bannerUrl: null,
        role: 'USER',
        badges: [],
      });
      expect(new Date(body.createdAt).toISOString()).toBe(body.createdAt);
      expect(JSON.stringify(body).toLowerCase()).not.toMatch(/password|hash/);
    });

    it('shows the built-in default avatar under CDN_URL when no image was uploaded', async () => {
      expect(defaultAvatar.startsWith(`${t.config.cdnUrl}/`)).toBe(true);
      const path = new URL(defaultAvatar).pathname;
      const res = await t.app.inject({ method: 'GET', url: path });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^image\//);
      expect((await me(await createUser(t.app))).json().image).toBe(defaultAvatar);
    });

    it('shows the role of staff accounts', async () => {
      expect((await me(p.moderator)).json().role).toBe('MODERATOR');
      expect((await me(p.superAdmin)).json().role).toBe('SUPER_ADMIN');
    });
  });

  describe('PATCH /users/me', () => {
    it('updates displayName, bio, location and website and shows them in both profiles', async () => {
      const user = await createUser(t.app);
      const changes = {
        displayName: 'Display Me',
        bio: 'I build worlds.',
        location: 'Lisbon',
        website: 'https://worlds.example/me',
      };
      const res = await patchMe(user, changes);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ ...changes, id: user.id, email: user.email });
      expect((await me(user)).json()).toMatchObject(changes);
      expect((await publicById(user.id)).json()).toMatchObject(changes);
      expect((await publicByName(user.username)).json()).toMatchObject(changes);
    });

    it('changes only the fields sent', async () => {
      const user = await createUser(t.app);
      await patchMe(user, { displayName: 'Keep Me', bio: 'Keep this too' });
      const res = await patchMe(user, { location: 'Oslo' });
      expect(res.json()).toMatchObject({ displayName: 'Keep Me', bio: 'Keep this too', location: 'Oslo' });
    });

    it('clears fields set to null', async () => {
      const user = await createUser(t.app);
      await patchMe(user, { displayName: 'X', bio: 'Y', location: 'Z', website: 'http://site.example' });
      const res = await patchMe(user, { displayName: null, bio: null, location: null, website: null });
      expect(res.statusCode, res.body).toBe(200);
      expect((await me(user)).json()).toMatchObject({
        displayName: null,
        bio: null,
        location: null,
        website: null,
      });
    });

    it('accepts a bio of exactly 500 characters', async () => {
      const user = await createUser(t.app);
      const res = await patchMe(user, { bio: 'b'.repeat(500) });
      expect(res.statusCode, res.body).toBe(200);
      expect((await me(user)).json().bio).toHaveLength(500);
    });

    it.each([
      ['bio', { bio: 'b'.repeat(501) }],
      ['website', { website: 'javascript:alert(1)' }],
      ['website', { website: 'ftp://files.example' }],
      ['website', { website: 'not a url' }],
      ['website', { website: `https://example.com/${'a'.repeat(2048)}` }],
      ['displayName', { displayName: 'd'.repeat(101) }],
      ['location', { location: 'l'.repeat(101) }],
    ])('answers 400 naming %s for %j, changing nothing', async (field, payload) => {
      const user = await createUser(t.app);
      await patchMe(user, { bio: 'before', website: 'https://before.example' });
      const body = expectError(await patchMe(user, payload), 400, 'INVALID_REQUEST');
      expect(Object.keys((body.details as { fields: object }).fields).join(',')).toContain(field);
      expect((await me(user)).json()).toMatchObject({ bio: 'before', website: 'https://before.example' });
    });

    it('answers 401 to anonymous callers', async () => {
      expectError(
        await t.app.inject({ method: 'PATCH', url: '/users/me', payload: { bio: 'x' } }),
        401,
        'UNAUTHORIZED',
      );
    });
  });

  describe('public profile', () => {
    it('has the public fields and never the email, by id and by username', async () => {
      const user = await createUser(t.app);
      for (const res of [
        await publicById(user.id),
        await publicByName(user.username),
        await publicById(user.id, p.user),
      ]) {
        expect(res.statusCode, res.body).toBe(200);
        const body = res.json();
        for (const field of PUBLIC_FIELDS) expect(body, field).toHaveProperty(field);
        expect(body).not.toHaveProperty('email');
        expect(res.body).not.toContain(user.email);
        expect(body).not.toHaveProperty('role');
        expect(body).toMatchObject({
          id: user.id,
          username: user.username,
          image: defaultAvatar,
          bannerUrl: null,
          badges: [],
          socialLinks: [],
          followerCount: 0,
          followingCount: 0,
          isFollowing: false,
        });
      }
    });

    it('finds a username case-insensitively', async () => {
      const user = await createUser(t.app, { username: `MiXeD_${token()}` });
      for (const name of [user.username.toLowerCase(), user.username.toUpperCase()]) {
        const res = await publicByName(name);
        expect(res.statusCode).toBe(200);
        expect(res.json()).toMatchObject({ id: user.id, username: user.username });
      }
    });

    it('lists social links in their order', async () => {
      const user = await createUser(t.app);
      const urls = ['https://one.example', 'https://two.example', 'https://three.example'];
      for (const url of urls) {
        await t.app.inject({
          method: 'POST',
          url: '/users/me/social-links',
          headers: user.headers,
          payload: { platform: 'WEBSITE', url },
        });
      }
      const links = (await publicById(user.id)).json().socialLinks as Array<{ url: string; order: number }>;
      expect(links.map((link) => link.url)).toEqual(urls);
      expect(links.map((link) => link.order)).toEqual([0, 1, 2]);
    });

    it('shows isFollowing true to a follower, false to others and to anonymous callers', async () => {
      const target = await createUser(t.app);
      const fan = await createUser(t.app);
      expect((await follow(fan, target)).statusCode).toBe(200);
      expect((await publicById(target.id, fan)).json().isFollowing).toBe(true);
      expect((await publicByName(target.username, fan)).json().isFollowing).toBe(true);
      expect((await publicById(target.id, p.stranger)).json().isFollowing).toBe(false);
      expect((await publicById(target.id)).json().isFollowing).toBe(false);
      expect((await publicByName(target.username)).json().isFollowing).toBe(false);
      // One's own profile: not following oneself.
      expect((await publicById(target.id, target)).json().isFollowing).toBe(false);
      expect((await publicById(target.id)).json().followerCount).toBe(1);
      expect((await publicById(fan.id)).json().followingCount).toBe(1);
    });

    it('answers 404 for an unknown id or username', async () => {
      expectError(await publicById('00000000-0000-7000-8000-000000000000'), 404, 'NOT_FOUND');
      expectError(await publicByName('nobody_by_that_name'), 404, 'NOT_FOUND');
    });

    it('answers 404 for a banned user, by id and by username', async () => {
      const user = await createUser(t.app);
      const ban = await t.app.inject({
        method: 'PATCH',
        url: `/admin/users/${user.id}`,
        headers: p.admin.headers,
        payload: { status: 'BANNED' },
      });
      expect(ban.statusCode).toBe(200);
      expectError(await publicById(user.id), 404, 'NOT_FOUND');
      expectError(await publicByName(user.username, p.user), 404, 'NOT_FOUND');
    });
  });

  describe('GET /users/search', () => {
    type Hit = { id: string; username: string; displayName: string | null; image: string; badges: unknown[] };
    const hits = async (query: string) => {
      const res = await search(query);
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as { users: Hit[] }).users;
    };

    it('answers 401 to anonymous callers', async () => {
      expectError(await search('q=anything', null), 401, 'UNAUTHORIZED');
    });

    it.each([
      ['a missing q', ''],
      ['an empty q', 'q='],
      ['limit over 100', 'q=abc&limit=101'],
      ['limit 0', 'q=abc&limit=0'],
      ['a non-numeric limit', 'q=abc&limit=lots'],
    ])('answers 400 for %s', async (_label, query) => {
      expectError(await search(query), 400, 'INVALID_REQUEST');
    });

    it('matches username and display name case-insensitively, with the summary fields', async () => {
      const tag = token();
      const byName = await createUser(t.app, { username: `${tag.toUpperCase()}_x` });
      const byDisplay = await createUser(t.app);
      await patchMe(byDisplay, { displayName: `The ${tag.toUpperCase()} Builder` });
      await createUser(t.app);
      const found = await hits(`q=${tag}`);
      expect(found.map((hit) => hit.id).sort()).toEqual([byName.id, byDisplay.id].sort());
      for (const hit of found)
        expect(Object.keys(hit).sort()).toEqual(['badges', 'displayName', 'id', 'image', 'username']);
      expect(found.find((hit) => hit.id === byDisplay.id)).toMatchObject({
        displayName: `The ${tag.toUpperCase()} Builder`,
        image: defaultAvatar,
        badges: [],
      });
      expect((await hits(`q=${tag.toUpperCase()}`)).length).toBe(2);
    });

    // Full-text search (issue 17, test/search/teams-users-search.test.ts): punctuation separates words and is
    // never a wildcard; every word must match, the last one as a prefix.
    it('treats _ as a word separator: ab_c is found by its parts and joined, abxc is not', async () => {
      const tag = token();
      const underscore = await createUser(t.app, { username: `${tag}ab_c` });
      const plain = await createUser(t.app, { username: `${tag}abxc` });
      expect((await hits(`q=${tag}ab_c`)).map((hit) => hit.id)).toEqual([underscore.id]);
      expect((await hits(`q=${tag}ab_`)).map((hit) => hit.id)).toEqual([underscore.id]);
      expect((await hits(`q=${tag}abc`)).map((hit) => hit.id)).toEqual([underscore.id]);
      expect((await hits(`q=${tag}abx`)).map((hit) => hit.id)).toEqual([plain.id]);
    });

    it('treats % and backslashes as separators, never as wildcards', async () => {
      const tag = token();
      const percent = await createUser(t.app);
      const plain = await createUser(t.app);
      await patchMe(percent, { displayName: `${tag} 100% pure C:\\games` });
      await patchMe(plain, { displayName: `${tag} 100 times pure` });
      const ids = async (q: string) => (await hits(`q=${encodeURIComponent(q)}`)).map((hit) => hit.id).sort();
      expect(await ids(`${tag} 100%`)).toEqual([percent.id, plain.id].sort());
      // Typed joined, the words must also stand together: "100 times", not "100% pure".
      expect(await ids(`${tag} 100%times`)).toEqual([plain.id]);
      expect(await ids(`${tag} c:\\gam`)).toEqual([percent.id]);
      expect(await ids('%')).toEqual([]);
    });

    it('returns 20 results by default and honours limit', async () => {
      const tag = token();
      await Promise.all(
        Array.from({ length: 21 }, (_, i) => createUser(t.app, { username: `${tag}_m${i}` })),
      );
      expect(await hits(`q=${tag}`)).toHaveLength(20);
      expect(await hits(`q=${tag}&limit=21`)).toHaveLength(21);
      expect(await hits(`q=${tag}&limit=5`)).toHaveLength(5);
    });

    it('leaves banned users out', async () => {
      const tag = token();
      const banned = await createUser(t.app, { username: `${tag}_banned` });
      const kept = await createUser(t.app, { username: `${tag}_kept` });
      await t.app.inject({
        method: 'PATCH',
        url: `/admin/users/${banned.id}`,
        headers: p.admin.headers,
        payload: { status: 'BANNED' },
      });
      expect((await hits(`q=${tag}`)).map((hit) => hit.id)).toEqual([kept.id]);
    });
  });
});
