// Issue 11, defect 2: a NUL character in any text was a 500 on PostgreSQL (`invalid byte sequence for encoding
// "UTF8": 0x00`). It is refused with 400 INVALID_REQUEST naming where, on both dialects, for every way text
// arrives: path parameters, query strings, JSON bodies (values, nested values, keys) and multipart text fields.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { expectError, multipart } from '../helpers/http.js';
import { createResource } from '../resources/helpers.js';

describe('NUL characters are refused everywhere (defect 2)', () => {
  let t: TestApp;
  let user: TestUser;
  let resourceId: string;

  beforeAll(async () => {
    t = await buildTestApp();
    user = await createUser(t.app);
    resourceId = (await createResource(t.app, user)).id;
  });
  afterAll(async () => t.close());

  const expectNulRefused = (response: Awaited<ReturnType<TestApp['app']['inject']>>, where: string) => {
    const body = expectError(response, 400, 'INVALID_REQUEST');
    expect(body.message).toContain(where);
    expect(body.details).toEqual({ fields: { [where]: 'contains a NUL character' } });
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  };

  it.each([
    ['/resources/%00', 'path'],
    ['/resources/slug/a%00b', 'path'],
    ['/users/%00/followers', 'path'],
    ['/teams/%00', 'path'],
    ['/servers/a%00', 'path'],
  ])('refuses a NUL in the path: GET %s', async (url, where) => {
    expectNulRefused(await t.app.inject({ method: 'GET', url }), where);
  });

  it.each([
    ['/resources?search=%00', 'querystring.search'],
    ['/resources?search=ok&tags=a%00', 'querystring.tags'],
    ['/teams?search=x%00y', 'querystring.search'],
    ['/servers?search=%00', 'querystring.search'],
    ['/users/search?q=%00', 'querystring.q'],
    ['/resource-tags/search?q=%00', 'querystring.q'],
  ])('refuses a NUL in the query string: GET %s', async (url, where) => {
    expectNulRefused(await t.app.inject({ method: 'GET', url, headers: user.headers }), where);
  });

  it('refuses a NUL in a JSON body before authentication: POST /auth/login', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"login":"a\\u0000","password":"correct horse battery"}',
    });
    expectNulRefused(response, 'body.login');
  });

  it.each([
    ['PATCH', '/users/me', { bio: 'a\u0000b' }, 'body.bio'],
    ['POST', '/teams', { name: 'Team\u0000', slug: 'nul-team' }, 'body.name'],
    [
      'POST',
      '/resources',
      { name: 'R\u0000', slug: 'nul-res', shortDescription: 'x', type: 'MOD' },
      'body.name',
    ],
    ['POST', '/servers', { name: 'S\u0000', slug: 'nul-server', ip: 'play.example.com' }, 'body.name'],
    ['POST', '/users/me/api-keys', { name: 'key\u0000' }, 'body.name'],
  ])('refuses a NUL in a JSON body: %s %s', async (method, url, payload, where) => {
    const response = await t.app.inject({ method: method as 'POST', url, headers: user.headers, payload });
    expectNulRefused(response, where);
  });

  it('refuses a NUL nested in an array and in an object key', async () => {
    const nested = await t.app.inject({
      method: 'PATCH',
      url: `/resources/${resourceId}`,
      headers: user.headers,
      payload: { tags: ['fine', 'bad\u0000'] },
    });
    expectNulRefused(nested, 'body.tags.1');
    const key = await t.app.inject({
      method: 'PATCH',
      url: '/users/me',
      headers: user.headers,
      payload: { 'bio\u0000': 'x' },
    });
    expectNulRefused(key, 'body');
  });

  it('refuses a NUL in a multipart text field', async () => {
    const form = await multipart(
      'image',
      { data: Buffer.from('not read'), name: 'a.png' },
      { caption: 'a\u0000b' },
    );
    const response = await t.app.inject({
      method: 'POST',
      url: `/resources/${resourceId}/gallery-images`,
      headers: { ...user.headers, ...form.headers },
      payload: form.payload,
    });
    expectNulRefused(response, 'body.caption');
  });

  it('still accepts other unicode, and the text "%00" itself', async () => {
    const bio = 'Zażółć 🎮 \u200b tab\there';
    const patched = await t.app.inject({
      method: 'PATCH',
      url: '/users/me',
      headers: user.headers,
      payload: { bio },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect((patched.json() as { bio: string }).bio).toBe(bio);
    const search = await t.app.inject({ method: 'GET', url: '/resources?search=%2500' });
    expect(search.statusCode, search.body).toBe(200);
  });
});
