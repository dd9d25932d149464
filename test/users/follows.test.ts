// Follows (DESIGN §8 "Social"): idempotent, counted exactly under concurrency, lists readable only by their owner.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas, createUser } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';

interface FollowEdge {
  id: string;
  username: string;
  displayName: string | null;
  image: string;
  bio: string | null;
  followedAt: string;
  _count: { followers: number; following: number };
}

describe('follows', () => {
  let t: TestApp;
  let p: Personas;

  beforeAll(async () => {
    t = await buildTestApp();
    p = await createPersonas(t.app);
  });
  afterAll(async () => t.close());

  const follow = (follower: TestUser | null, targetId: string) =>
    t.app.inject({ method: 'POST', url: `/users/${targetId}/follow`, headers: follower?.headers ?? {} });
  const unfollow = (follower: TestUser | null, targetId: string) =>
    t.app.inject({ method: 'DELETE', url: `/users/${targetId}/follow`, headers: follower?.headers ?? {} });
  const list = (caller: TestUser | null, userId: string, direction: 'followers' | 'following') =>
    t.app.inject({ method: 'GET', url: `/users/${userId}/${direction}`, headers: caller?.headers ?? {} });
  const counts = async (user: TestUser) => {
    const body = (await t.app.inject({ method: 'GET', url: '/users/me', headers: user.headers })).json();
    return { followers: body.followerCount as number, following: body.followingCount as number };
  };
  const publicCounts = async (user: TestUser) => {
    const body = (await t.app.inject({ method: 'GET', url: `/users/${user.id}` })).json();
    return { followers: body.followerCount as number, following: body.followingCount as number };
  };

  describe('POST /users/:userId/follow', () => {
    it('follows: 200 {message, followerCount: 1}, and the follower’s followingCount is 1', async () => {
      const fan = await createUser(t.app);
      const star = await createUser(t.app);
      const res = await follow(fan, star.id);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(Object.keys(body).sort()).toEqual(['followerCount', 'message']);
      expect(typeof body.message).toBe('string');
      expect(body.message.length).toBeGreaterThan(0);
      expect(body.followerCount).toBe(1);
      expect(await counts(fan)).toEqual({ followers: 0, following: 1 });
      expect(await counts(star)).toEqual({ followers: 1, following: 0 });
      expect(await publicCounts(fan)).toEqual({ followers: 0, following: 1 });
      expect(await publicCounts(star)).toEqual({ followers: 1, following: 0 });
    });

    it('is idempotent: following again keeps the count at 1', async () => {
      const fan = await createUser(t.app);
      const star = await createUser(t.app);
      expect((await follow(fan, star.id)).json().followerCount).toBe(1);
      const again = await follow(fan, star.id);
      expect(again.statusCode).toBe(200);
      expect(again.json().followerCount).toBe(1);
      expect(await counts(fan)).toEqual({ followers: 0, following: 1 });
      expect((await list(star, star.id, 'followers')).json()).toHaveLength(1);
    });

    it('returns the target’s total follower count', async () => {
      const star = await createUser(t.app);
      expect((await follow(p.user, star.id)).json().followerCount).toBe(1);
      expect((await follow(p.stranger, star.id)).json().followerCount).toBe(2);
    });

    it('answers 400 for following yourself and counts nothing', async () => {
      const user = await createUser(t.app);
      expectError(await follow(user, user.id), 400, 'INVALID_REQUEST');
      expect(await counts(user)).toEqual({ followers: 0, following: 0 });
    });

    it('answers 404 for an unknown user and for a banned user', async () => {
      const user = await createUser(t.app);
      expectError(await follow(user, '00000000-0000-7000-8000-000000000000'), 404, 'NOT_FOUND');
      const banned = await createUser(t.app);
      const ban = await t.app.inject({
        method: 'PATCH',
        url: `/admin/users/${banned.id}`,
        headers: p.admin.headers,
        payload: { status: 'BANNED' },
      });
      expect(ban.statusCode).toBe(200);
      expectError(await follow(user, banned.id), 404, 'NOT_FOUND');
      expect(await counts(user)).toEqual({ followers: 0, following: 0 });
    });

    it('answers 401 to anonymous callers', async () => {
      expectError(await follow(null, p.user.id), 401, 'UNAUTHORIZED');
    });

    it('counts exactly 10 when 10 users follow one user in parallel', async () => {
      const star = await createUser(t.app);
      const fans = await Promise.all(Array.from({ length: 10 }, () => createUser(t.app)));
      const results = await Promise.all(fans.map((fan) => follow(fan, star.id)));
      for (const res of results) expect(res.statusCode, res.body).toBe(200);
      expect(
        results
          .map((res) => res.json().followerCount)
          .sort((a, b) => a - b)
          .at(-1),
      ).toBe(10);
      expect((await counts(star)).followers).toBe(10);
      expect((await list(star, star.id, 'followers')).json()).toHaveLength(10);
      // The same follows repeated in parallel change nothing.
      await Promise.all(fans.map((fan) => follow(fan, star.id)));
      expect((await counts(star)).followers).toBe(10);
      for (const fan of fans) expect((await counts(fan)).following).toBe(1);
    });
  });

  describe('DELETE /users/:userId/follow', () => {
    it('unfollows: followerCount 0, and again stays 0', async () => {
      const fan = await createUser(t.app);
      const star = await createUser(t.app);
      await follow(fan, star.id);
      const res = await unfollow(fan, star.id);
      expect(res.statusCode, res.body).toBe(200);
      expect(Object.keys(res.json()).sort()).toEqual(['followerCount', 'message']);
      expect(res.json().followerCount).toBe(0);
      expect(await counts(fan)).toEqual({ followers: 0, following: 0 });

      const again = await unfollow(fan, star.id);
      expect(again.statusCode).toBe(200);
      expect(again.json().followerCount).toBe(0);
      expect(await counts(star)).toEqual({ followers: 0, following: 0 });
      expect(await counts(fan)).toEqual({ followers: 0, following: 0 });
    });

    it('never goes below zero when unfollowing someone never followed', async () => {
      const fan = await createUser(t.app);
      const star = await createUser(t.app);
      await follow(p.user, star.id);
      expect((await unfollow(fan, star.id)).json().followerCount).toBe(1);
      expect(await counts(fan)).toEqual({ followers: 0, following: 0 });
    });

    it('answers 400 for yourself, 404 for an unknown user, 401 anonymous', async () => {
      const user = await createUser(t.app);
      expectError(await unfollow(user, user.id), 400);
      expectError(await unfollow(user, 'no-such-user'), 404, 'NOT_FOUND');
      expectError(await unfollow(null, user.id), 401, 'UNAUTHORIZED');
    });
  });

  describe('followers and following lists', () => {
    it('lists your followers newest first with {id, username, displayName, image, bio, followedAt, _count}', async () => {
      const star = await createUser(t.app);
      const fans: TestUser[] = [];
      for (let i = 0; i < 3; i++) {
        const fan = await createUser(t.app);
        await t.app.inject({
          method: 'PATCH',
          url: '/users/me',
          headers: fan.headers,
          payload: { displayName: `Fan ${i}`, bio: `bio ${i}` },
        });
        t.clock.advance(1000);
        expect((await follow(fan, star.id)).statusCode).toBe(200);
        fans.push(fan);
      }
      // The second fan also follows someone else, which shows in its _count.
      await follow(fans[1]!, p.user.id);

      const res = await list(star, star.id, 'followers');
      expect(res.statusCode, res.body).toBe(200);
      const edges = res.json() as FollowEdge[];
      expect(Array.isArray(edges)).toBe(true);
      expect(edges.map((edge) => edge.id)).toEqual([fans[2]!.id, fans[1]!.id, fans[0]!.id]);
      for (const edge of edges) {
        expect(Object.keys(edge).sort()).toEqual([
          '_count',
          'bio',
          'displayName',
          'followedAt',
          'id',
          'image',
          'username',
        ]);
      }
      expect(edges[0]).toMatchObject({
        username: fans[2]!.username,
        displayName: 'Fan 2',
        bio: 'bio 2',
        _count: { followers: 0, following: 1 },
      });
      expect(edges[1]!._count).toEqual({ followers: 0, following: 2 });
      expect(edges[0]!.image.startsWith(`${t.config.cdnUrl}/`)).toBe(true);
      const times = edges.map((edge) => new Date(edge.followedAt).getTime());
      expect(times[0]).toBeGreaterThan(times[1]!);
      expect(times[1]).toBeGreaterThan(times[2]!);
      expect(edges[0]!.followedAt).toBe(new Date(times[0]!).toISOString());
    });

    it('lists who you follow, newest first, with their counts', async () => {
      const fan = await createUser(t.app);
      const first = await createUser(t.app);
      const second = await createUser(t.app);
      await follow(fan, first.id);
      t.clock.advance(1000);
      await follow(fan, second.id);
      const res = await list(fan, fan.id, 'following');
      expect(res.statusCode, res.body).toBe(200);
      const edges = res.json() as FollowEdge[];
      expect(edges.map((edge) => edge.id)).toEqual([second.id, first.id]);
      expect(edges[0]!._count).toEqual({ followers: 1, following: 0 });
      // Unfollowing removes the edge.
      await unfollow(fan, first.id);
      expect(((await list(fan, fan.id, 'following')).json() as FollowEdge[]).map((edge) => edge.id)).toEqual([
        second.id,
      ]);
    });

    it('returns an empty array when there is nobody', async () => {
      const loner = await createUser(t.app);
      expect((await list(loner, loner.id, 'followers')).json()).toEqual([]);
      expect((await list(loner, loner.id, 'following')).json()).toEqual([]);
    });

    it.each(['followers', 'following'] as const)(
      'answers 403 for another user’s %s list, saying only your own list can be viewed',
      async (direction) => {
        const owner = await createUser(t.app);
        const body = expectError(await list(p.stranger, owner.id, direction), 403, 'FORBIDDEN');
        expect(body.message.toLowerCase()).toContain('own');
        expect(body.message.toLowerCase()).toContain(direction);
        // Staff are no exception.
        expectError(await list(p.superAdmin, owner.id, direction), 403);
      },
    );

    it.each(['followers', 'following'] as const)(
      'answers 401 to anonymous callers (%s)',
      async (direction) => {
        expectError(await list(null, p.user.id, direction), 401, 'UNAUTHORIZED');
      },
    );
  });
});
