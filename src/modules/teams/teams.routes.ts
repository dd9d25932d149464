import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { typed } from '../../core/http/typed.js';
import { requireActor, requireUser } from '../../core/auth/authenticate.js';
import { readBufferedUpload } from '../../core/http/multipart.js';
import { SECURED } from '../../core/http/openapi.js';
import { multipartForm } from '../../core/http/openapi-multipart.js';
import { uploadLimit } from '../../core/http/rate-limits.js';
import { errors, ref } from '../../core/http/schemas.js';
import { IMAGE_LIMITS } from '../../core/images.js';
import {
  CreateTeamBody,
  MyTeams,
  Team,
  TeamIdParams,
  TeamList,
  TeamListQuery,
  TeamSlugParams,
  UpdateTeamBody,
} from './teams.schemas.js';
import type { TeamImageKind, TeamsService } from './teams.service.js';

const tags = ['teams'];
const security = SECURED;

const IMAGE_ROUTES: Array<{ kind: TeamImageKind; name: 'Logo' | 'Banner'; box: string }> = [
  { kind: 'logo', name: 'Logo', box: '512x512' },
  { kind: 'banner', name: 'Banner', box: '1920x1080' },
];

export async function teamsRoutes(
  fastify: FastifyInstance,
  { teams }: { teams: TeamsService },
): Promise<void> {
  const app = typed(fastify);

  app.get(
    '/teams',
    {
      schema: {
        tags,
        summary: 'List teams, newest first; with a search, by relevance',
        description:
          'Without a search, `total` is the number of all teams, read from a counter kept in step with ' +
          'creations and deletions; with a search it is the exact number of matching teams (the full-text ' +
          'match count).',
        operationId: 'listTeams',
        querystring: TeamListQuery,
        response: { 200: TeamList, ...errors(400) },
      },
    },
    async (request) => {
      const { search, limit = 20, offset = 0 } = request.query;
      const { teams: items, total } = await teams.list(search, limit, offset);
      return { teams: items, total, meta: { total, limit, offset } };
    },
  );

  // Registered before /teams/:id… for readability; the router prefers static segments anyway.
  app.get(
    '/teams/me',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'The teams you belong to, with your role, by name',
        description:
          'Every team you are a member of, with your role in each, sorted by name. Needs credentials.',
        operationId: 'listMyTeams',
        security,
        response: { 200: MyTeams, ...errors(401) },
      },
    },
    async (request) => ({ teams: await teams.myTeams(requireActor(request).userId) }),
  );

  app.get(
    '/teams/slug/:slug',
    {
      schema: {
        tags,
        summary: 'A team by slug, with its members and social links',
        description: 'A team by its slug, with its members and social links. Public.',
        operationId: 'getTeamBySlug',
        params: TeamSlugParams,
        response: { 200: ref(Team), ...errors(400, 404) },
      },
    },
    async (request) => teams.getBySlug(request.params.slug),
  );

  app.post(
    '/teams',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Create a team; you become its OWNER',
        description:
          'The slug is unique among teams (409 SLUG_TAKEN). A description is at most 250 characters.',
        operationId: 'createTeam',
        body: CreateTeamBody,
        security,
        response: { 201: ref(Team), ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) => reply.status(201).send(await teams.create(requireActor(request), request.body)),
  );

  app.patch(
    '/teams/:id',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Edit a team (owner or admin): name, description (null or empty clears it)',
        description:
          "Changes a team's name or description (null or an empty description clears it). Only the " +
          "team's owner or admins; other callers get 403, and a team they cannot see is 404.",
        operationId: 'updateTeam',
        params: TeamIdParams,
        body: UpdateTeamBody,
        security,
        response: { 200: ref(Team), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => teams.update(requireActor(request), request.params.id, request.body),
  );

  app.delete(
    '/teams/:id',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Delete a team (owner); 409 while it still owns resources or servers',
        description: 'Removes the members, invitations, social links and images with it.',
        operationId: 'deleteTeam',
        params: TeamIdParams,
        security,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await teams.remove(requireActor(request), request.params.id);
      return reply.status(204).send(null);
    },
  );

  for (const { kind, name, box } of IMAGE_ROUTES) {
    app.post(
      `/teams/:id/${kind}`,
      {
        preHandler: requireUser,
        config: uploadLimit,
        schema: {
          tags,
          summary: `Upload the team ${kind} (owner or admin)`,
          description:
            `multipart/form-data with one file field \`${kind}\` (PNG, JPG or WEBP; at most 5 MiB and 25 ` +
            `megapixels), scaled to fit ${box}. The image is re-encoded and its metadata stripped.`,
          operationId: `uploadTeam${name}`,
          ...multipartForm({ file: kind, fileDescription: 'PNG, JPG or WEBP; at most 5 MiB' }),
          params: TeamIdParams,
          security,
          response: { 200: ref(Team), ...errors(400, 401, 403, 404, 409, 413, 415) },
        },
      },
      async (request) =>
        teams.setImage(requireActor(request), request.params.id, kind, async () => {
          return (await readBufferedUpload(request, kind, IMAGE_LIMITS.maxBytes)).data;
        }),
    );

    app.delete(
      `/teams/:id/${kind}`,
      {
        preHandler: requireUser,
        schema: {
          tags,
          summary: `Remove the team ${kind} (owner or admin)`,
          description: `Removes the team's ${kind} image. Only the team's owner or admins.`,
          operationId: `deleteTeam${name}`,
          params: TeamIdParams,
          security,
          response: { 200: ref(Team), ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (request) => teams.removeImage(requireActor(request), request.params.id, kind),
    );
  }
}
