import type { FastifyInstance } from 'fastify';
import { typed } from '../../core/http/typed.js';
import { requireActor, requireUser } from '../../core/auth/authenticate.js';
import { readBufferedUpload } from '../../core/http/multipart.js';
import type { ObjectCache } from '../../core/http/object-cache.js';
import { SECURED } from '../../core/http/openapi.js';
import { multipartForm } from '../../core/http/openapi-multipart.js';
import { uploadLimit } from '../../core/http/rate-limits.js';
import { errors, ref } from '../../core/http/schemas.js';
import { IMAGE_LIMITS } from '../../core/images.js';
import type { UsersService } from './users.service.js';
import {
  ImageUrlResponse,
  PrivateProfile,
  PublicProfile,
  UpdateProfileBody,
  UserIdParams,
  UsernameParams,
  UserSearchQuery,
  UserSearchResult,
} from './users.schemas.js';

const tags = ['users'];
const authed = { security: SECURED };
const uploadSchema = (field: string) => ({
  ...multipartForm({ file: field, fileDescription: 'PNG, JPG or WEBP; at most 5 MiB' }),
  description: `multipart/form-data with one file field \`${field}\` (PNG, JPG or WEBP; at most 5 MiB and 25 megapixels). The image is re-encoded and its metadata stripped.`,
});

export async function usersRoutes(
  fastify: FastifyInstance,
  { users, objects }: { users: UsersService; objects: ObjectCache },
): Promise<void> {
  const app = typed(fastify);
  app.get(
    '/users/me',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Your private profile',
        description: 'Your own profile, including the fields only you see. Needs credentials.',
        operationId: 'getMyProfile',
        ...authed,
        response: { 200: ref(PrivateProfile), ...errors(401) },
      },
    },
    async (request) => users.getPrivateProfile(requireActor(request).userId),
  );

  app.patch(
    '/users/me',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Edit your profile (displayName, bio, location, website; null clears)',
        description:
          'Changes the fields sent (displayName, bio, location, website); null clears a field, absent ' +
          'fields stay. Needs credentials; you can only edit your own profile.',
        operationId: 'updateMyProfile',
        body: UpdateProfileBody,
        ...authed,
        response: { 200: ref(PrivateProfile), ...errors(400, 401) },
      },
    },
    async (request) => users.updateProfile(requireActor(request).userId, request.body),
  );

  app.post(
    '/users/me/image',
    {
      preHandler: requireUser,
      config: uploadLimit,
      schema: {
        tags,
        summary: 'Upload your avatar',
        operationId: 'uploadMyImage',
        ...uploadSchema('image'),
        ...authed,
        response: { 200: ImageUrlResponse, ...errors(400, 401, 413, 415) },
      },
    },
    async (request) => {
      const upload = await readBufferedUpload(request, 'image', IMAGE_LIMITS.maxBytes);
      const profile = await users.setAvatar(requireActor(request).userId, upload.data);
      return { imageUrl: profile.image };
    },
  );

  app.delete(
    '/users/me/image',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Remove your avatar (the default avatar is shown again)',
        description: 'Removes your uploaded avatar and shows the default avatar again. Needs credentials.',
        operationId: 'deleteMyImage',
        ...authed,
        response: { 200: ref(PrivateProfile), ...errors(401) },
      },
    },
    async (request) => users.removeAvatar(requireActor(request).userId),
  );

  app.post(
    '/users/me/banner',
    {
      preHandler: requireUser,
      config: uploadLimit,
      schema: {
        tags,
        summary: 'Upload your profile banner',
        operationId: 'uploadMyBanner',
        ...uploadSchema('banner'),
        ...authed,
        response: { 200: ref(PrivateProfile), ...errors(400, 401, 413, 415) },
      },
    },
    async (request) => {
      const upload = await readBufferedUpload(request, 'banner', IMAGE_LIMITS.maxBytes);
      return users.setBanner(requireActor(request).userId, upload.data);
    },
  );

  app.delete(
    '/users/me/banner',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Remove your profile banner',
        description: 'Removes your profile banner. Needs credentials.',
        operationId: 'deleteMyBanner',
        ...authed,
        response: { 200: ref(PrivateProfile), ...errors(401) },
      },
    },
    async (request) => users.removeBanner(requireActor(request).userId),
  );

  app.get(
    '/users/search',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Find users by username or display name',
        description: 'Finds users whose username or display name matches the query. Needs credentials.',
        operationId: 'searchUsers',
        querystring: UserSearchQuery,
        ...authed,
        response: { 200: UserSearchResult, ...errors(400, 401) },
      },
    },
    async (request) => ({ users: await users.search(request.query.q, request.query.limit ?? 20) }),
  );

  app.get(
    '/users/username/:username',
    {
      schema: {
        tags,
        summary: 'Public profile by username (isFollowing when authenticated)',
        description:
          'The public profile of a user by username. Public; with credentials the answer also says ' +
          'whether you follow them (isFollowing).',
        operationId: 'getUserByUsername',
        params: UsernameParams,
        ...authed,
        response: { 200: ref(PublicProfile), ...errors(404) },
      },
    },
    async (request, reply) => {
      const { username } = request.params;
      const viewer = request.actor?.userId;
      // Anonymous callers all get the same answer (no isFollowing): kept until the database changes.
      if (viewer !== undefined) return users.getPublicProfileByUsername(username, viewer);
      return objects.send(reply, `user-by-name:${username.toLowerCase()}`, () =>
        users.getPublicProfileByUsername(username, undefined),
      );
    },
  );

  app.get(
    '/users/:userId',
    {
      schema: {
        tags,
        summary: 'Public profile by id',
        description: 'The public profile of a user by id. Public; an unknown id is 404.',
        operationId: 'getUser',
        params: UserIdParams,
        response: { 200: ref(PublicProfile), ...errors(404) },
      },
    },
    async (request, reply) => {
      const { userId } = request.params;
      const viewer = request.actor?.userId;
      if (viewer !== undefined) return users.getPublicProfileById(userId, viewer);
      return objects.send(reply, `user:${userId}`, () => users.getPublicProfileById(userId, undefined));
    },
  );
}
