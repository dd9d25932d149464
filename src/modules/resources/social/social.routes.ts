import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { requireActor, requireUser } from '../../../core/auth/authenticate.js';
import { SECURED } from '../../../core/http/openapi.js';
import { Id, LimitOffsetQuery, PageMeta, Timestamp, errors, named, ref } from '../../../core/http/schemas.js';
import { typed } from '../../../core/http/typed.js';
import { UserSummary } from '../../users/users.schemas.js';
import { OPTIONAL_AUTH, ResourceSummary } from '../resources.schemas.js';
import type { Reaction, SocialService } from './social.service.js';

const tags = ['resources'];
const security = SECURED;
const ResourceParams = Type.Object({ resourceId: Id });

const Like = named(
  'ResourceLike',
  Type.Object({ id: Id, userId: Id, user: ref(UserSummary), createdAt: Timestamp }),
);
const Favorite = named(
  'ResourceFavorite',
  Type.Object({ id: Id, resourceId: Id, resource: ref(ResourceSummary), createdAt: Timestamp }),
);

const REACTION_ROUTES: Array<{
  reaction: Reaction;
  path: 'likes' | 'favorites';
  name: 'Like' | 'Favorite';
  count: 'likeCount' | 'favoriteCount';
  flag: 'hasLiked' | 'hasFavorited';
  added: string;
  removed: string;
}> = [
  {
    reaction: 'like',
    path: 'likes',
    name: 'Like',
    count: 'likeCount',
    flag: 'hasLiked',
    added: 'Resource liked',
    removed: 'Like removed',
  },
  {
    reaction: 'favorite',
    path: 'favorites',
    name: 'Favorite',
    count: 'favoriteCount',
    flag: 'hasFavorited',
    added: 'Resource added to favorites',
    removed: 'Resource removed from favorites',
  },
];

export async function resourceSocialRoutes(
  fastify: FastifyInstance,
  { social }: { social: SocialService },
): Promise<void> {
  const app = typed(fastify);

  for (const { reaction, path, name, count, flag, added, removed } of REACTION_ROUTES) {
    const Result = Type.Object({ message: Type.String(), [count]: Type.Integer() });

    app.post(
      `/resources/:resourceId/${path}`,
      {
        preHandler: requireUser,
        schema: {
          tags,
          summary: `${name} a resource (idempotent: repeating it returns the current count)`,
          description:
            `Adds your ${reaction} to a resource you may see and returns the current count; repeating it ` +
            `changes nothing. Needs credentials.`,
          operationId: `add${name}ToResource`,
          params: ResourceParams,
          security,
          response: { 200: Result, ...errors(400, 401, 404) },
        },
      },
      async (request) => ({
        message: added,
        [count]: await social.set(requireActor(request), request.params.resourceId, reaction, true),
      }),
    );

    app.delete(
      `/resources/:resourceId/${path}`,
      {
        preHandler: requireUser,
        schema: {
          tags,
          summary: `Take back your ${reaction} (idempotent)`,
          description:
            `Takes back your ${reaction} and returns the current count; repeating it changes nothing. ` +
            `Needs credentials.`,
          operationId: `remove${name}FromResource`,
          params: ResourceParams,
          security,
          response: { 200: Result, ...errors(400, 401, 404) },
        },
      },
      async (request) => ({
        message: removed,
        [count]: await social.set(requireActor(request), request.params.resourceId, reaction, false),
      }),
    );

    app.get(
      `/resources/:resourceId/${path}/me`,
      {
        preHandler: requireUser,
        schema: {
          tags,
          summary: `Whether you ${reaction === 'like' ? 'like' : 'have favorited'} this resource`,
          description: `Whether you have given this resource your ${reaction}. Needs credentials.`,
          operationId: `getMyResource${name}`,
          params: ResourceParams,
          security,
          response: { 200: Type.Object({ [flag]: Type.Boolean() }), ...errors(400, 401, 404) },
        },
      },
      async (request) => ({
        [flag]: await social.has(requireActor(request), request.params.resourceId, reaction),
      }),
    );
  }

  app.get(
    '/resources/:resourceId/likes',
    {
      schema: {
        tags,
        summary: 'Who likes a resource, newest first',
        description: '`total` is the stored like count.',
        operationId: 'listResourceLikes',
        params: ResourceParams,
        querystring: LimitOffsetQuery,
        security: OPTIONAL_AUTH,
        response: {
          200: Type.Object({ likes: Type.Array(ref(Like)), total: Type.Integer(), meta: ref(PageMeta) }),
          ...errors(400, 404),
        },
      },
    },
    async (request) => {
      const { limit = 20, offset = 0 } = request.query;
      const result = await social.likes(request.actor, request.params.resourceId, limit, offset);
      return { ...result, meta: { total: result.total, limit, offset } };
    },
  );

  app.get(
    '/user/favorites',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Your favorite resources, newest first',
        description: 'Favorites of resources you can no longer see (e.g. suspended ones) are left out.',
        operationId: 'listMyFavoriteResources',
        querystring: LimitOffsetQuery,
        security,
        response: {
          200: Type.Object({
            favorites: Type.Array(ref(Favorite)),
            total: Type.Integer(),
            meta: ref(PageMeta),
          }),
          ...errors(400, 401),
        },
      },
    },
    async (request) => {
      const { limit = 20, offset = 0 } = request.query;
      const result = await social.favorites(requireActor(request), limit, offset);
      return { ...result, meta: { total: result.total, limit, offset } };
    },
  );
}
