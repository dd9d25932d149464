// Likes and favorites: idempotent, exact counts under concurrency, the likers list, your favorites.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import { createResourceCast, expectResourceInvariants, moderate, resourceFor } from './helpers.js';
import type { ResourceBody, ResourceCast } from './helpers.js';

let t: TestApp;
let cast: ResourceCast;

beforeAll(async () => {
  t = await buildTestApp();
  cast = await createResourceCast(t.app);
});
afterAll(async () => t.close());
afterEach(async () => expectResourceInvariants(t.app));

const REACTIONS = [
  { path: 'likes', count: 'likeCount', flag: 'hasLiked' },
  { path: 'favorites', count: 'favoriteCount', flag: 'hasFavorited' },
] as const;

const react = (resource: ResourceBody, path: string, user: TestUser, method: 'POST' | 'DELETE' = 'POST') =>
  t.app.inject({ method, url: `/resources/${resource.id}/${path}`, headers: user.headers });

describe.each(REACTIONS)('$path', ({ path, count, flag }) => {
  it('adds and removes idempotently, answering the current count', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    let response = await react(resource, path, cast.stranger);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ message: expect.any(String) as string, [count]: 1 });
    expect((await react(resource, path, cast.stranger)).json()).toMatchObject({ [count]: 1 });
    expect((await react(resource, path, cast.owner)).json()).toMatchObject({ [count]: 2 });

    const mine = await t.app.inject({
      method: 'GET',
      url: `/resources/${resource.id}/${path}/me`,
      headers: cast.stranger.headers,
    });
    expect(mine.json()).toEqual({ [flag]: true });

    response = await react(resource, path, cast.stranger, 'DELETE');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ message: expect.any(String) as string, [count]: 1 });
    expect((await react(resource, path, cast.stranger, 'DELETE')).json()).toMatchObject({ [count]: 1 });
    const after = await t.app.inject({
      method: 'GET',
      url: `/resources/${resource.id}/${path}/me`,
      headers: cast.stranger.headers,
    });
    expect(after.json()).toEqual({ [flag]: false });
    const shown = await t.app.inject({ method: 'GET', url: `/resources/${resource.id}` });
    expect(shown.json()).toMatchObject({ [count]: 1 });
  });

  it('counts exactly when many users react at once, and when one user repeats at once', async () => {
    const resource = await resourceFor(t.app, cast, 'TEAM', 'APPROVED');
    const users = await Promise.all(Array.from({ length: 15 }, () => createUser(t.app)));
    const responses = await Promise.all([
      ...users.map((user) => react(resource, path, user)),
      ...Array.from({ length: 5 }, () => react(resource, path, cast.stranger)),
    ]);
    expect(responses.every((r) => r.statusCode === 200)).toBe(true);
    const shown = await t.app.inject({ method: 'GET', url: `/resources/${resource.id}` });
    expect(shown.json()).toMatchObject({ [count]: 16 });
    await Promise.all(users.slice(0, 10).map((user) => react(resource, path, user, 'DELETE')));
    const later = await t.app.inject({ method: 'GET', url: `/resources/${resource.id}` });
    expect(later.json()).toMatchObject({ [count]: 6 });
  });

  it('is 404 on a resource the caller cannot see, 401 anonymous', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'PENDING');
    expectError(await react(resource, path, cast.stranger), 404);
    expectError(await t.app.inject({ method: 'POST', url: `/resources/${resource.id}/${path}` }), 401);
    expectError(
      await react({ id: '01900000-0000-7000-8000-000000000000' } as ResourceBody, path, cast.stranger),
      404,
    );
  });
});

describe('GET /resources/:resourceId/likes', () => {
  it('lists who likes it, newest first, with the stored count as total', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    for (const persona of ['stranger', 'teamMember', 'admin'] as const) {
      t.clock.advance(1000);
      await react(resource, 'likes', cast[persona]);
    }
    const response = await t.app.inject({ method: 'GET', url: `/resources/${resource.id}/likes` });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as {
      likes: Array<{ id: string; userId: string; user: { username: string }; createdAt: string }>;
      total: number;
      meta: unknown;
    };
    expect(body.likes.map((like) => like.userId)).toEqual([
      cast.admin.id,
      cast.teamMember.id,
      cast.stranger.id,
    ]);
    expect(body.likes[0]).toMatchObject({
      user: { id: cast.admin.id, username: cast.admin.username },
      createdAt: t.clock.now().toISOString(),
    });
    expect(body.total).toBe(3);
    expect(body.meta).toEqual({ total: 3, limit: 20, offset: 0 });
    const page = await t.app.inject({
      method: 'GET',
      url: `/resources/${resource.id}/likes?limit=1&offset=1`,
    });
    expect((page.json() as typeof body).likes.map((like) => like.userId)).toEqual([cast.teamMember.id]);
  });
});

describe('GET /user/favorites', () => {
  it('lists your favorites newest first with the resource summary; hidden resources are left out', async () => {
    const fan = await createUser(t.app);
    const first = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const second = await resourceFor(t.app, cast, 'TEAM', 'APPROVED');
    await react(first, 'favorites', fan);
    t.clock.advance(1000);
    await react(second, 'favorites', fan);
    const read = async () => {
      const response = await t.app.inject({ method: 'GET', url: '/user/favorites', headers: fan.headers });
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as {
        favorites: Array<{
          id: string;
          resourceId: string;
          resource: Record<string, unknown>;
          createdAt: string;
        }>;
        total: number;
      };
    };
    const body = await read();
    expect(body.total).toBe(2);
    expect(body.favorites.map((f) => f.resourceId)).toEqual([second.id, first.id]);
    expect(body.favorites[0]!.resource).toEqual({
      id: second.id,
      name: second.name,
      slug: second.slug,
      shortDescription: second.shortDescription,
      iconUrl: null,
      type: second.type,
    });
    await moderate(t.app, cast.moderator, first.id, 'SUSPEND');
    const afterSuspension = await read();
    expect(afterSuspension.favorites.map((f) => f.resourceId)).toEqual([second.id]);
    expect(afterSuspension.total).toBe(1);
    expectError(await t.app.inject({ method: 'GET', url: '/user/favorites' }), 401);
  });
});
