// Account administration and user status (DESIGN §7): who may list and change accounts, and what BANNED and
// SUSPENDED do to a user's credentials.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/core/db/schema.js';
import { DAY_MS } from '../../src/core/clock.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas, createUser } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';

interface AdminUser {
  id: string;
  username: string;
  email: string;
  role: Role;
  status: string;
  suspendedUntil: string | null;
}

describe('account administration and status', () => {
  let t: TestApp;
  let p: Personas;

  beforeAll(async () => {
    t = await buildTestApp();
    p = await createPersonas(t.app);
  });
  afterAll(async () => t.close());

  const listUsers = (caller: TestUser | null, query = '') =>
    t.app.inject({ method: 'GET', url: `/admin/users${query}`, headers: caller?.headers ?? {} });
  const patchUser = (caller: TestUser, userId: string, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'PATCH', url: `/admin/users/${userId}`, headers: caller.headers, payload });
  const me = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/users/me', headers });
  const patchMe = (user: TestUser, payload: Record<string, unknown> = { bio: 'still here' }) =>
    t.app.inject({ method: 'PATCH', url: '/users/me', headers: user.headers, payload });
  const addLink = (user: TestUser) =>
    t.app.inject({
      method: 'POST',
      url: '/users/me/social-links',
      headers: user.headers,
      payload: { platform: 'WEBSITE', url: 'https://example.test' },
    });

  async function setStatus(target: TestUser, payload: Record<string, unknown>, by: TestUser = p.admin) {
    const res = await patchUser(by, target.id, payload);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as AdminUser;
  }

  async function login(user: TestUser) {
    return t.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { login: user.username, password: user.password },
    });
  }

  describe('GET /admin/users', () => {
    it('answers 401 to anonymous callers', async () => {
      expectError(await listUsers(null), 401, 'UNAUTHORIZED');
    });

    it.each(['user', 'moderator'] as const)('answers 403 to a %s', async (persona) => {
      expectError(await listUsers(p[persona]), 403, 'FORBIDDEN');
    });

    it.each(['admin', 'superAdmin'] as const)(
      'lists accounts for a %s with total and meta',
      async (persona) => {
        const res = await listUsers(p[persona], '?limit=5&offset=1');
        expect(res.statusCode, res.body).toBe(200);
        const body = res.json() as { users: AdminUser[]; total: number; meta: Record<string, number> };
        expect(body.total).toBeGreaterThanOrEqual(5);
        expect(body.meta).toEqual({ total: body.total, limit: 5, offset: 1 });
        expect(body.users.length).toBeLessThanOrEqual(5);
        expect(body.users.length).toBeGreaterThan(0);
        for (const user of body.users) {
          expect(user).toHaveProperty('email');
          expect(user).toHaveProperty('role');
          expect(user).toHaveProperty('status');
        }
      },
    );

    it('defaults to limit 20, offset 0', async () => {
      const body = (await listUsers(p.admin)).json();
      expect(body.meta).toMatchObject({ limit: 20, offset: 0 });
    });

    it('filters by search over username and email, case-insensitively', async () => {
      const tag = `Srch${process.pid}`;
      const byName = await createUser(t.app, { username: `${tag}_named` });
      const other = await createUser(t.app);
      const res = await listUsers(p.admin, `?search=${tag.toLowerCase()}`);
      expect(res.statusCode).toBe(200);
      const ids = (res.json().users as AdminUser[]).map((user) => user.id);
      expect(ids).toEqual([byName.id]);
      expect(res.json().total).toBe(1);
      const byEmail = await listUsers(p.admin, `?search=${encodeURIComponent(other.email.toUpperCase())}`);
      expect((byEmail.json().users as AdminUser[]).map((user) => user.id)).toEqual([other.id]);
    });

    it('filters by role', async () => {
      const res = await listUsers(p.admin, '?role=MODERATOR&limit=100');
      const users = res.json().users as AdminUser[];
      expect(users.map((user) => user.id)).toContain(p.moderator.id);
      expect(users.every((user) => user.role === 'MODERATOR')).toBe(true);
      expect(res.json().total).toBe(users.length);
    });

    it('filters by status', async () => {
      const target = await createUser(t.app);
      await setStatus(target, { status: 'SUSPENDED' });
      const res = await listUsers(p.admin, '?status=SUSPENDED&limit=100');
      const users = res.json().users as AdminUser[];
      expect(users.map((user) => user.id)).toContain(target.id);
      expect(users.every((user) => user.status === 'SUSPENDED')).toBe(true);
      const active = (await listUsers(p.admin, '?status=ACTIVE&limit=100')).json().users as AdminUser[];
      expect(active.map((user) => user.id)).not.toContain(target.id);
    });

    it.each([
      ['limit over 100', '?limit=101'],
      ['limit 0', '?limit=0'],
      ['a negative offset', '?offset=-1'],
      ['an unknown role', '?role=OWNER'],
      ['an unknown status', '?status=GONE'],
    ])('answers 400 for %s', async (_label, query) => {
      expectError(await listUsers(p.admin, query), 400, 'INVALID_REQUEST');
    });
  });

  describe('PATCH /admin/users/:userId', () => {
    it('answers 401 anonymous and 403 to a moderator', async () => {
      const target = await createUser(t.app);
      expectError(
        await t.app.inject({
          method: 'PATCH',
          url: `/admin/users/${target.id}`,
          payload: { status: 'BANNED' },
        }),
        401,
      );
      expectError(await patchUser(p.moderator, target.id, { status: 'SUSPENDED' }), 403, 'FORBIDDEN');
      expect((await me(target.headers)).json().status).toBe('ACTIVE');
    });

    it('refuses a role change by an ADMIN (403) and applies it for a SUPER_ADMIN', async () => {
      const target = await createUser(t.app);
      expectError(await patchUser(p.admin, target.id, { role: 'MODERATOR' }), 403, 'FORBIDDEN');
      expect((await me(target.headers)).json().role).toBe('USER');

      const res = await patchUser(p.superAdmin, target.id, { role: 'MODERATOR' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ id: target.id, role: 'MODERATOR' });
      expect((await me(target.headers)).json().role).toBe('MODERATOR');
    });

    it('gives a promoted account its new rights on the next request', async () => {
      const target = await createUser(t.app);
      expectError(await listUsers(target), 403);
      await setStatus(target, { role: 'ADMIN' }, p.superAdmin);
      expect((await listUsers(target)).statusCode).toBe(200);
    });

    it('lets an ADMIN change the status of a USER and of a MODERATOR', async () => {
      for (const role of ['USER', 'MODERATOR'] as const) {
        const target = await createUser(t.app, { role });
        const updated = await setStatus(target, { status: 'SUSPENDED' });
        expect(updated).toMatchObject({ id: target.id, status: 'SUSPENDED' });
      }
    });

    it.each([
      ['another ADMIN', 'ADMIN'],
      ['a SUPER_ADMIN', 'SUPER_ADMIN'],
    ] as const)('refuses an ADMIN changing %s (403)', async (_label, role) => {
      const target = await createUser(t.app, { role });
      expectError(await patchUser(p.admin, target.id, { status: 'BANNED' }), 403, 'FORBIDDEN');
      expect((await me(target.headers)).statusCode).toBe(200);
      expect((await me(target.headers)).json().status).toBe('ACTIVE');
    });

    it('lets a SUPER_ADMIN change an ADMIN', async () => {
      const target = await createUser(t.app, { role: 'ADMIN' });
      expect((await setStatus(target, { status: 'SUSPENDED' }, p.superAdmin)).status).toBe('SUSPENDED');
    });

    it.each(['admin', 'superAdmin'] as const)(
      'refuses a %s changing their own account (403)',
      async (persona) => {
        expectError(await patchUser(p[persona], p[persona].id, { status: 'SUSPENDED' }), 403, 'FORBIDDEN');
        expectError(await patchUser(p[persona], p[persona].id, { role: 'USER' }), 403, 'FORBIDDEN');
        expect((await me(p[persona].headers)).json()).toMatchObject({
          status: 'ACTIVE',
          role: p[persona].role,
        });
      },
    );

    it('answers 404 for an unknown user', async () => {
      expectError(await patchUser(p.admin, 'no-such-user', { status: 'SUSPENDED' }), 404, 'NOT_FOUND');
      expectError(await patchUser(p.superAdmin, 'no-such-user', { role: 'ADMIN' }), 404, 'NOT_FOUND');
    });

    it.each([
      ['an empty body', {}],
      ['only unknown fields', { banned: true }],
      ['an unknown role', { role: 'OWNER' }],
      ['an unknown status', { status: 'DELETED' }],
      ['suspendedUntil without SUSPENDED', { status: 'ACTIVE', suspendedUntil: '2999-01-01T00:00:00.000Z' }],
      ['a past suspendedUntil', { status: 'SUSPENDED', suspendedUntil: '2000-01-01T00:00:00.000Z' }],
    ])('answers 400 for %s', async (_label, payload) => {
      const target = await createUser(t.app);
      expectError(await patchUser(p.admin, target.id, payload), 400, 'INVALID_REQUEST');
      expect((await me(target.headers)).json().status).toBe('ACTIVE');
    });
  });

  describe('BANNED', () => {
    it.each(['API key', 'session token'] as const)(
      'refuses the banned user’s existing %s with 403 ACCOUNT_BANNED on the very next request',
      async (kind) => {
        const target = await createUser(t.app);
        const headers =
          kind === 'API key'
            ? target.headers
            : { authorization: `Bearer ${(await login(target)).json().token}` };
        expect((await me(headers)).statusCode).toBe(200);
        expect((await setStatus(target, { status: 'BANNED' })).status).toBe('BANNED');
        expectError(await me(headers), 403, 'ACCOUNT_BANNED');
      },
    );

    it('revokes every key and token: after un-banning, the old credentials are 401', async () => {
      const target = await createUser(t.app);
      const session = (await login(target)).json().token as string;
      await setStatus(target, { status: 'BANNED' });
      await setStatus(target, { status: 'ACTIVE' });
      expectError(await me(target.headers), 401, 'UNAUTHORIZED');
      expectError(await me({ authorization: `Bearer ${session}` }), 401, 'UNAUTHORIZED');
      // The account itself is usable again through a new login, and the dead key is no longer listed.
      const again = await login(target);
      expect(again.statusCode, again.body).toBe(200);
      const fresh = { authorization: `Bearer ${again.json().token}` };
      expect((await me(fresh)).statusCode).toBe(200);
      const keys = await t.app.inject({ method: 'GET', url: '/users/me/api-keys', headers: fresh });
      expect(keys.json().apiKeys).toEqual([]);
      const created = await t.app.inject({
        method: 'POST',
        url: '/users/me/api-keys',
        headers: fresh,
        payload: { name: 'after the ban' },
      });
      expect(created.statusCode, created.body).toBe(201);
      expect((await me({ 'x-api-key': created.json().key })).statusCode).toBe(200);
    });

    it('refuses login of a banned user with 403 ACCOUNT_BANNED, but wrong passwords stay 401', async () => {
      const target = await createUser(t.app);
      await setStatus(target, { status: 'BANNED' });
      expectError(await login(target), 403, 'ACCOUNT_BANNED');
      expectError(
        await t.app.inject({
          method: 'POST',
          url: '/auth/login',
          payload: { login: target.username, password: 'not the password' },
        }),
        401,
        'INVALID_CREDENTIALS',
      );
    });

    it('hides the banned user’s public profile', async () => {
      const target = await createUser(t.app);
      await setStatus(target, { status: 'BANNED' });
      expectError(await t.app.inject({ method: 'GET', url: `/users/${target.id}` }), 404, 'NOT_FOUND');
    });
  });

  describe('SUSPENDED', () => {
    it('lets the user read (200) but refuses every write with 403 ACCOUNT_SUSPENDED', async () => {
      const target = await createUser(t.app);
      await setStatus(target, { status: 'SUSPENDED' });
      const profile = await me(target.headers);
      expect(profile.statusCode).toBe(200);
      expect(profile.json().status).toBe('SUSPENDED');
      expect(
        (await t.app.inject({ method: 'GET', url: `/users/${p.user.id}`, headers: target.headers }))
          .statusCode,
      ).toBe(200);
      expectError(await patchMe(target), 403, 'ACCOUNT_SUSPENDED');
      expectError(await addLink(target), 403, 'ACCOUNT_SUSPENDED');
      expectError(
        await t.app.inject({ method: 'POST', url: `/users/${p.user.id}/follow`, headers: target.headers }),
        403,
        'ACCOUNT_SUSPENDED',
      );
      expectError(
        await t.app.inject({
          method: 'POST',
          url: '/users/me/api-keys',
          headers: target.headers,
          payload: { name: 'x' },
        }),
        403,
        'ACCOUNT_SUSPENDED',
      );
      expect((await me(target.headers)).json().bio).toBeNull();
    });

    it('suspends for 7 days by default', async () => {
      const target = await createUser(t.app);
      const updated = await setStatus(target, { status: 'SUSPENDED' });
      expect(new Date(updated.suspendedUntil!).getTime()).toBe(t.clock.now().getTime() + 7 * DAY_MS);
    });

    it('takes an explicit suspendedUntil', async () => {
      const target = await createUser(t.app);
      const until = new Date(t.clock.now().getTime() + 2 * DAY_MS).toISOString();
      const updated = await setStatus(target, { status: 'SUSPENDED', suspendedUntil: until });
      expect(updated.suspendedUntil).toBe(until);
    });

    it('allows writes again once suspendedUntil has passed', async () => {
      const target = await createUser(t.app);
      const until = new Date(t.clock.now().getTime() + DAY_MS).toISOString();
      await setStatus(target, { status: 'SUSPENDED', suspendedUntil: until });
      expectError(await patchMe(target), 403, 'ACCOUNT_SUSPENDED');
      t.clock.advance(DAY_MS - 1000);
      expectError(await patchMe(target), 403, 'ACCOUNT_SUSPENDED');
      t.clock.advance(2000);
      const res = await patchMe(target);
      expect(res.statusCode, res.body).toBe(200);
      expect((await addLink(target)).statusCode).toBe(201);
    });

    it('shows the account ACTIVE again once the lift-expired-suspensions job has run past suspendedUntil', async () => {
      const target = await createUser(t.app);
      const until = new Date(t.clock.now().getTime() + DAY_MS).toISOString();
      await setStatus(target, { status: 'SUSPENDED', suspendedUntil: until });
      await t.app.context.scheduler.runNow('lift-expired-suspensions');
      expect((await me(target.headers)).json()).toMatchObject({ status: 'SUSPENDED', suspendedUntil: until });
      t.clock.advance(DAY_MS);
      await t.app.context.scheduler.runNow('lift-expired-suspensions');
      expect((await me(target.headers)).json()).toMatchObject({ status: 'ACTIVE', suspendedUntil: null });
    });

    it('allows writes again when an admin sets the account ACTIVE', async () => {
      const target = await createUser(t.app);
      await setStatus(target, { status: 'SUSPENDED' });
      expectError(await patchMe(target), 403, 'ACCOUNT_SUSPENDED');
      const updated = await setStatus(target, { status: 'ACTIVE' });
      expect(updated).toMatchObject({ status: 'ACTIVE', suspendedUntil: null });
      expect((await patchMe(target)).statusCode).toBe(200);
    });

    it('keeps the suspended user’s keys (unlike a ban)', async () => {
      const target = await createUser(t.app);
      await setStatus(target, { status: 'SUSPENDED' });
      await setStatus(target, { status: 'ACTIVE' });
      expect((await me(target.headers)).statusCode).toBe(200);
    });
  });
});
