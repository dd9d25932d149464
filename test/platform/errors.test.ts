// The one error shape (DESIGN §6) and the body rules every route shares: validation, malformed and oversized
// bodies, unknown fields dropped, text trimmed, and 5xx bodies free of internals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas, createUser } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';

const ERROR_KEYS = ['code', 'error', 'message', 'requestId', 'statusCode'];

describe('error responses and body rules', () => {
  let t: TestApp;
  let personas: Personas;

  beforeAll(async () => {
    t = await buildTestApp();
    personas = await createPersonas(t.app);
  });
  afterAll(async () => t.close());

  const me = (user: TestUser) => t.app.inject({ method: 'GET', url: '/users/me', headers: user.headers });
  const patchMe = (user: TestUser, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'PATCH', url: '/users/me', headers: user.headers, payload });

  describe('unknown routes', () => {
    it('answers 404 NOT_FOUND in exactly the error shape', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/no/such/route?x=1' });
      const body = expectError(res, 404, 'NOT_FOUND');
      expect(Object.keys(body).sort()).toEqual(ERROR_KEYS);
      expect(body.error).toBe('Not Found');
      expect(body.message).toContain('/no/such/route');
      expect(body.message).not.toContain('x=1');
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    });

    it('answers 405 with Allow for a known path with a method it does not have', async () => {
      const res = await t.app.inject({ method: 'PUT', url: '/health' });
      const body = expectError(res, 405, 'METHOD_NOT_ALLOWED');
      expect(res.headers['allow']).toBe('GET, HEAD');
      expect(Object.keys(body).sort()).toEqual(ERROR_KEYS);
    });
  });

  describe('validation', () => {
    it('answers 400 INVALID_REQUEST with details.fields naming the body field', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/auth/register',
        payload: { username: 'a', email: 'valid@example.test', password: 'long enough password' },
      });
      const body = expectError(res, 400, 'INVALID_REQUEST');
      expect(body.error).toBe('Bad Request');
      const fields = (body.details as { fields: Record<string, string> }).fields;
      expect(Object.keys(fields)).toContain('body.username');
      expect(typeof fields['body.username']).toBe('string');
      expect(body.message).toContain('username');
    });

    it('names a missing required field', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/auth/register',
        payload: { username: 'missing_email', password: 'long enough password' },
      });
      const body = expectError(res, 400, 'INVALID_REQUEST');
      expect(Object.keys((body.details as { fields: object }).fields)).toContain('body.email');
    });

    it('names an invalid query parameter', async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: '/admin/users?limit=101',
        headers: personas.admin.headers,
      });
      const body = expectError(res, 400, 'INVALID_REQUEST');
      expect(Object.keys((body.details as { fields: object }).fields)).toContain('querystring.limit');
    });

    it('answers 400 for a body that is not an object', async () => {
      const res = await t.app.inject({
        method: 'PATCH',
        url: '/users/me',
        headers: { ...personas.user.headers, 'content-type': 'application/json' },
        payload: '"just a string"',
      });
      expectError(res, 400, 'INVALID_REQUEST');
    });
  });

  describe('malformed and oversized bodies', () => {
    it('answers 400 INVALID_REQUEST for malformed JSON', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/auth/login',
        headers: { 'content-type': 'application/json' },
        payload: '{"login": "someone", "password": ',
      });
      const body = expectError(res, 400, 'INVALID_REQUEST');
      expect(Object.keys(body).sort()).toEqual(ERROR_KEYS);
    });

    it('answers 413 PAYLOAD_TOO_LARGE for a JSON body over 1 MiB', async () => {
      const payload = JSON.stringify({ login: 'x'.repeat(1024 * 1024 + 16), password: 'whatever' });
      const res = await t.app.inject({
        method: 'POST',
        url: '/auth/login',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expectError(res, 413, 'PAYLOAD_TOO_LARGE');
    });

    it('accepts a JSON body just under 1 MiB (reaching validation instead)', async () => {
      const payload = JSON.stringify({ login: 'x'.repeat(1024 * 1024 - 100), password: 'whatever' });
      const res = await t.app.inject({
        method: 'POST',
        url: '/auth/login',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      // The login field is longer than its schema allows: a 400, so the body was read rather than refused.
      expectError(res, 400, 'INVALID_REQUEST');
    });
  });

  describe('unknown body fields', () => {
    it('drops role, email and counters from PATCH /users/me and applies the known fields', async () => {
      const user = await createUser(t.app);
      const before = (await me(user)).json();
      const res = await patchMe(user, {
        displayName: 'Known Field',
        role: 'ADMIN',
        email: 'attacker@example.test',
        followerCount: 999,
        followingCount: 999,
        status: 'ACTIVE',
        id: 'someone-else',
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ displayName: 'Known Field', role: 'USER', email: user.email });

      const after = (await me(user)).json();
      expect(after).toEqual({ ...before, displayName: 'Known Field' });
      expect(after.role).toBe('USER');
      expect(after.email).toBe(user.email);
      expect(after.followerCount).toBe(0);
      expect(after.followingCount).toBe(0);
      expect(after.id).toBe(user.id);
    });

    it('does not grant admin rights through an unknown role field', async () => {
      const user = await createUser(t.app);
      expect((await patchMe(user, { role: 'SUPER_ADMIN' })).statusCode).toBe(200);
      const res = await t.app.inject({ method: 'GET', url: '/admin/users', headers: user.headers });
      expectError(res, 403, 'FORBIDDEN');
    });

    it('drops an unknown role field at registration', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/auth/register',
        payload: {
          username: 'would_be_admin',
          email: 'would_be_admin@example.test',
          password: 'long enough password',
          role: 'SUPER_ADMIN',
        },
      });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().user.role).toBe('USER');
    });
  });

  describe('text trimming', () => {
    it('trims string fields of JSON bodies', async () => {
      const user = await createUser(t.app);
      const res = await patchMe(user, {
        displayName: '  Bob  ',
        bio: '\n  hello there \t',
        location: ' Paris ',
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ displayName: 'Bob', bio: 'hello there', location: 'Paris' });
      expect((await me(user)).json()).toMatchObject({
        displayName: 'Bob',
        bio: 'hello there',
        location: 'Paris',
      });
    });

    it('validates the trimmed value: a whitespace-only display name is empty, so 400', async () => {
      const user = await createUser(t.app);
      expect((await patchMe(user, { displayName: 'Someone' })).statusCode).toBe(200);
      const body = expectError(await patchMe(user, { displayName: '    ' }), 400, 'INVALID_REQUEST');
      expect(Object.keys((body.details as { fields: object }).fields)).toContain('body.displayName');
      expect((await me(user)).json().displayName).toBe('Someone');
    });
  });
});

// Built after the main app is closed, so only one app at a time is alive in this file.
describe('server errors', () => {
  it('renders a 5xx without stack, SQL or paths', async () => {
    // An app whose database is closed under it: every query fails inside the driver.
    const broken = await buildTestApp();
    try {
      const user = await createUser(broken.app);
      await broken.app.context.database.db.destroy();
      const res = await broken.app.inject({ method: 'GET', url: '/users/me', headers: user.headers });
      const body = expectError(res, 500, 'INTERNAL_ERROR');
      expect(Object.keys(body).sort()).toEqual(ERROR_KEYS);
      expect(body.error).toBe('Internal Server Error');
      expect(body.message).toBe('Internal server error');
      expect(res.body).not.toMatch(/stack|select|\.ts|\.js|node_modules|destroyed/i);
    } finally {
      await broken.close().catch(() => undefined);
    }
  });
});
