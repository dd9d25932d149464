// Accounts and credentials (DESIGN §7): register, login, logout, and how x-api-key / Bearer are resolved.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/core/clock.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';

const PASSWORD = 'a good long password';
const TOKEN_PATTERN = /^ms_[0-9A-Za-z]{40}$/;
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

describe('authentication', () => {
  let t: TestApp;
  let counter = 0;

  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => t.close());

  /** A username no other test in this file uses. */
  const freshName = (stem = 'acct') => `${stem}_${process.pid}_${++counter}`;

  const register = (payload: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/auth/register', payload });
  const login = (loginName: string, password: string) =>
    t.app.inject({ method: 'POST', url: '/auth/login', payload: { login: loginName, password } });
  const getMe = (headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: '/users/me', headers });
  const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

  async function registered(stem?: string) {
    const username = freshName(stem);
    const email = `${username}@example.test`.toLowerCase();
    const res = await register({ username, email, password: PASSWORD });
    expect(res.statusCode, res.body).toBe(201);
    return { username, email, id: res.json().user.id as string };
  }

  async function sessionToken(loginName: string, password = PASSWORD): Promise<string> {
    const res = await login(loginName, password);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().token as string;
  }

  describe('POST /auth/register', () => {
    it('creates an account and answers 201 {user} with the private profile and no password', async () => {
      const username = freshName('Reg');
      const res = await register({ username, email: `${username}@Example.TEST`, password: PASSWORD });
      expect(res.statusCode, res.body).toBe(201);
      const body = res.json();
      expect(Object.keys(body)).toEqual(['user']);
      for (const field of PRIVATE_FIELDS) expect(body.user).toHaveProperty(field);
      expect(body.user).toMatchObject({
        username,
        email: `${username}@example.test`.toLowerCase(),
        role: 'USER',
        badges: [],
        bannerUrl: null,
        displayName: null,
        bio: null,
      });
      expect(typeof body.user.id).toBe('string');
      expect(new Date(body.user.createdAt).toISOString()).toBe(body.user.createdAt);
      expect(res.body).not.toContain(PASSWORD);
      expect(res.body.toLowerCase()).not.toMatch(/password|hash|argon/);
    });

    it('refuses a username taken case-insensitively: 409 USERNAME_TAKEN', async () => {
      const stem = `Alice${++counter}`;
      expect(
        (await register({ username: stem, email: `${stem}@one.test`, password: PASSWORD })).statusCode,
      ).toBe(201);
      const res = await register({
        username: stem.toLowerCase(),
        email: `${stem}@two.test`,
        password: PASSWORD,
      });
      expectError(res, 409, 'USERNAME_TAKEN');
    });

    it('refuses an email taken case-insensitively: 409 EMAIL_TAKEN', async () => {
      const first = freshName();
      const second = freshName();
      expect(
        (await register({ username: first, email: `Shared.${first}@Example.test`, password: PASSWORD }))
          .statusCode,
      ).toBe(201);
      const res = await register({
        username: second,
        email: `shared.${first}@example.TEST`,
        password: PASSWORD,
      });
      expectError(res, 409, 'EMAIL_TAKEN');
    });

    it('lets exactly one of two parallel registrations of one username through (409 USERNAME_TAKEN)', async () => {
      const username = freshName('Race');
      const results = await Promise.all([
        register({ username, email: `${username}.a@example.test`, password: PASSWORD }),
        register({
          username: username.toLowerCase(),
          email: `${username}.b@example.test`,
          password: PASSWORD,
        }),
      ]);
      expect(results.map((res) => res.statusCode).sort()).toEqual([201, 409]);
      expectError(
        results.find((res) => res.statusCode === 409)!,
        409,
        'USERNAME_TAKEN',
      );
    });

    it('lets exactly one of two parallel registrations of one email through (409 EMAIL_TAKEN)', async () => {
      const first = freshName();
      const second = freshName();
      const email = `race.${first}@example.test`;
      const results = await Promise.all([
        register({ username: first, email, password: PASSWORD }),
        register({ username: second, email: email.toUpperCase(), password: PASSWORD }),
      ]);
      expect(results.map((res) => res.statusCode).sort()).toEqual([201, 409]);
      expectError(
        results.find((res) => res.statusCode === 409)!,
        409,
        'EMAIL_TAKEN',
      );
    });

    it.each([
      ['password', { password: 'short7!' }],
      ['username', { username: 'a' }],
      ['username', { username: 'bad name' }],
      ['username', { username: 'x-y' }],
      ['username', { username: 'u'.repeat(33) }],
      ['email', { email: 'not-an-email' }],
      ['email', { email: 'missing@' }],
    ])('answers 400 naming %s for %j', async (field, override) => {
      const username = freshName();
      const res = await register({
        username,
        email: `${username}@example.test`,
        password: PASSWORD,
        ...override,
      });
      const body = expectError(res, 400, 'INVALID_REQUEST');
      const fields = Object.keys((body.details as { fields: Record<string, string> }).fields);
      expect(
        fields.some((key) => key.includes(field)),
        fields.join(','),
      ).toBe(true);
    });

    it('accepts a username of exactly 3 and 32 allowed characters', async () => {
      const suffix = String(++counter).padStart(4, '0');
      for (const username of [`Z${suffix.slice(-2)}`, `L_${suffix}`.padEnd(32, 'x')]) {
        const res = await register({ username, email: `${username}@example.test`, password: PASSWORD });
        expect(res.statusCode, res.body).toBe(201);
      }
    });
  });

  describe('POST /auth/login', () => {
    it('logs in by username and by email: 200 {token, expiresAt, user}', async () => {
      const account = await registered('Login');
      for (const loginName of [
        account.username,
        account.email,
        account.username.toUpperCase(),
        account.email.toUpperCase(),
      ]) {
        const res = await login(loginName, PASSWORD);
        expect(res.statusCode, `${loginName}: ${res.body}`).toBe(200);
        const body = res.json();
        expect(Object.keys(body).sort()).toEqual(['expiresAt', 'token', 'user']);
        expect(body.token).toMatch(TOKEN_PATTERN);
        expect(new Date(body.expiresAt).getTime()).toBe(t.clock.now().getTime() + 30 * DAY_MS);
        expect(body.user).toMatchObject({ id: account.id, username: account.username, email: account.email });
        expect(res.body.toLowerCase()).not.toMatch(/password|hash/);
      }
    });

    it('issues a different token per login', async () => {
      const account = await registered();
      expect(await sessionToken(account.username)).not.toBe(await sessionToken(account.username));
    });

    it('answers the same 401 INVALID_CREDENTIALS for a wrong password and an unknown login', async () => {
      const account = await registered();
      const wrongPassword = expectError(
        await login(account.username, 'not the password'),
        401,
        'INVALID_CREDENTIALS',
      );
      const unknown = expectError(await login(`nobody_${counter}`, PASSWORD), 401, 'INVALID_CREDENTIALS');
      // Identical but for the request id, which names each request.
      expect({ ...unknown, requestId: undefined }).toEqual({ ...wrongPassword, requestId: undefined });
    });

    it('does not trim passwords (they are secrets, not text)', async () => {
      const username = freshName();
      const spaced = `  ${PASSWORD}  `;
      expect(
        (await register({ username, email: `${username}@example.test`, password: spaced })).statusCode,
      ).toBe(201);
      expectError(await login(username, PASSWORD), 401, 'INVALID_CREDENTIALS');
      expect((await login(username, spaced)).statusCode).toBe(200);
    });

    it('answers 400 for a missing password', async () => {
      const res = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { login: 'someone' } });
      expectError(res, 400, 'INVALID_REQUEST');
    });
  });

  describe('credentials', () => {
    it('accepts the session token as Authorization: Bearer', async () => {
      const account = await registered();
      const token = await sessionToken(account.username);
      const res = await getMe(bearer(token));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().id).toBe(account.id);
    });

    it('accepts an API key as Bearer and as x-api-key', async () => {
      const user = await createUser(t.app);
      for (const headers of [
        bearer(user.apiKey),
        { 'x-api-key': user.apiKey },
        { authorization: `bearer ${user.apiKey}` },
      ]) {
        const res = await getMe(headers);
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().id).toBe(user.id);
      }
    });

    it('answers 401 UNAUTHORIZED without a credential on a required endpoint', async () => {
      expectError(await getMe(), 401, 'UNAUTHORIZED');
      expectError(await t.app.inject({ method: 'POST', url: '/auth/logout' }), 401, 'UNAUTHORIZED');
    });

    it.each([
      ['a garbage x-api-key', { 'x-api-key': 'garbage' }],
      ['a well-formed but unknown x-api-key', { 'x-api-key': `mk_${'A'.repeat(40)}` }],
      ['a well-formed but unknown bearer token', { authorization: `Bearer ms_${'b'.repeat(40)}` }],
      ['a bearer key with a wrong prefix', { authorization: `Bearer xx_${'b'.repeat(40)}` }],
    ])('answers 401 for %s, on required and on public endpoints', async (_label, headers) => {
      expectError(await getMe(headers), 401, 'UNAUTHORIZED');
      const someone = await createUser(t.app);
      expectError(
        await t.app.inject({ method: 'GET', url: `/users/${someone.id}`, headers }),
        401,
        'UNAUTHORIZED',
      );
    });

    it.each([
      ['Basic credentials', 'Basic dXNlcjpwYXNz'],
      ['a bare Bearer', 'Bearer'],
      ['a bearer with two parts', 'Bearer one two'],
      ['a token without scheme', `ms_${'c'.repeat(40)}`],
    ])('answers 401 for a malformed Authorization header (%s)', async (_label, authorization) => {
      expectError(await getMe({ authorization }), 401, 'UNAUTHORIZED');
    });

    it('refuses an API key sent with one character changed', async () => {
      const user = await createUser(t.app);
      const last = user.apiKey.at(-1) === 'a' ? 'b' : 'a';
      expectError(await getMe({ 'x-api-key': `${user.apiKey.slice(0, -1)}${last}` }), 401, 'UNAUTHORIZED');
      expect((await getMe(user.headers)).statusCode).toBe(200);
    });

    it('expires a session after 30 days', async () => {
      const account = await registered();
      const token = await sessionToken(account.username);
      t.clock.advance(29 * DAY_MS);
      expect((await getMe(bearer(token))).statusCode).toBe(200);
      t.clock.advance(2 * DAY_MS);
      expectError(await getMe(bearer(token)), 401, 'UNAUTHORIZED');
      // A new login works again.
      expect((await getMe(bearer(await sessionToken(account.username)))).statusCode).toBe(200);
    });
  });

  describe('POST /auth/logout', () => {
    it('revokes the bearer token: 204, then 401 on the next request', async () => {
      const account = await registered();
      const token = await sessionToken(account.username);
      const other = await sessionToken(account.username);
      const res = await t.app.inject({ method: 'POST', url: '/auth/logout', headers: bearer(token) });
      expect(res.statusCode, res.body).toBe(204);
      expect(res.body).toBe('');
      expectError(await getMe(bearer(token)), 401, 'UNAUTHORIZED');
      expectError(await t.app.inject({ method: 'POST', url: '/auth/logout', headers: bearer(token) }), 401);
      // Only that token: another session of the same account still works.
      expect((await getMe(bearer(other))).statusCode).toBe(200);
    });

    it.each([
      ['x-api-key', (key: string) => ({ 'x-api-key': key })],
      ['Bearer', (key: string) => ({ authorization: `Bearer ${key}` })],
    ])('answers 400 for an API key sent as %s, and the key keeps working', async (_label, headers) => {
      const user = await createUser(t.app);
      const res = await t.app.inject({ method: 'POST', url: '/auth/logout', headers: headers(user.apiKey) });
      expectError(res, 400);
      expect((await getMe(user.headers)).statusCode).toBe(200);
    });
  });
});
