import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { typed } from '../../../core/http/typed.js';
import { requireActor, requireUser } from '../../../core/auth/authenticate.js';
import { SECURED } from '../../../core/http/openapi.js';
import { Id, Limit, Nullable, Offset, Timestamp, errors } from '../../../core/http/schemas.js';
import { UserIdParams } from '../users.schemas.js';
import type { FollowsService } from './follows.service.js';

const tags = ['users'];
const FollowResult = Type.Object({ message: Type.String(), followerCount: Type.Integer() });
const FollowEdge = Type.Object({
  id: Id,
  username: Type.String(),
  displayName: Nullable(Type.String()),
  image: Type.String(),
  bio: Nullable(Type.String()),
  followedAt: Timestamp,
  _count: Type.Object({ followers: Type.Integer(), following: Type.Integer() }),
});
const EdgeQuery = Type.Object({
  limit: Type.Optional(Limit(100)),
  offset: Type.Optional(Offset),
});

export async function followsRoutes(
  fastify: FastifyInstance,
  { follows }: { follows: FollowsService },
): Promise<void> {
  const app = typed(fastify);
  const common = { preHandler: requireUser };

  app.post(
    '/users/:userId/follow',
    {
      ...common,
      schema: {
        tags,
        summary: 'Follow a user (idempotent; following yourself is 400)',
        description:
          'Starts following a user; following someone you already follow changes nothing, following ' +
          'yourself is 400. Needs credentials.',
        operationId: 'followUser',
        params: UserIdParams,
        security: SECURED,
        response: { 200: FollowResult, ...errors(400, 401, 404) },
      },
    },
    async (request) => ({
      message: 'Following',
      followerCount: await follows.follow(requireActor(request).userId, request.params.userId),
    }),
  );

  app.delete(
    '/users/:userId/follow',
    {
      ...common,
      schema: {
        tags,
        summary: 'Stop following a user (idempotent)',
        description: 'Stops following a user; repeating it changes nothing. Needs credentials.',
        operationId: 'unfollowUser',
        params: UserIdParams,
        security: SECURED,
        response: { 200: FollowResult, ...errors(400, 401, 404) },
      },
    },
    async (request) => ({
      message: 'Unfollowed',
      followerCount: await follows.unfollow(requireActor(request).userId, request.params.userId),
    }),
  );

  for (const direction of ['followers', 'following'] as const) {
    app.get(
      `/users/:userId/${direction}`,
      {
        ...common,
        schema: {
          tags,
          summary: `Your ${direction} (only your own list; another user's id is 403)`,
          description: `The users in your ${direction} list. Only your own list: another user's id is 403.`,
          operationId: direction === 'followers' ? 'listFollowers' : 'listFollowing',
          params: UserIdParams,
          querystring: EdgeQuery,
          security: SECURED,
          response: { 200: Type.Array(FollowEdge), ...errors(401, 403) },
        },
      },
      async (request) =>
        follows.list(
          requireActor(request).userId,
          request.params.userId,
          direction,
          request.query.limit ?? 100,
          request.query.offset ?? 0,
        ),
    );
  }
}
