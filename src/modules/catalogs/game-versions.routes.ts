import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { requireActor, requireRole } from '../../core/auth/authenticate.js';
import { SECURED } from '../../core/http/openapi.js';
import { errors, ref } from '../../core/http/schemas.js';
import { typed } from '../../core/http/typed.js';
import {
  CreateGameVersionBody,
  GameVersion,
  GameVersionIdParams,
  GameVersionList,
  UpdateGameVersionBody,
} from './game-versions.schemas.js';
import type { GameVersionsService } from './game-versions.service.js';

const tags = ['game-versions'];
const admins = requireRole('ADMIN');
const security = SECURED;

export async function gameVersionsRoutes(
  fastify: FastifyInstance,
  { gameVersions }: { gameVersions: GameVersionsService },
): Promise<void> {
  const app = typed(fastify);

  app.get(
    '/game-versions',
    {
      schema: {
        tags,
        summary: 'Game versions, newest first',
        description: 'Every game version resources can declare compatibility with, newest first. Public.',
        operationId: 'listGameVersions',
        response: { 200: GameVersionList },
      },
    },
    async () => ({ gameVersions: await gameVersions.list() }),
  );

  app.post(
    '/game-versions',
    {
      preHandler: admins,
      schema: {
        tags,
        summary: 'Add a game version (admin)',
        description: 'Names are unique (409 NAME_TAKEN).',
        operationId: 'createGameVersion',
        body: CreateGameVersionBody,
        security,
        response: { 201: ref(GameVersion), ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await gameVersions.create(requireActor(request).userId, request.body)),
  );

  app.patch(
    '/game-versions/:id',
    {
      preHandler: admins,
      schema: {
        tags,
        summary: 'Edit a game version (admin)',
        description: 'Changes a game version. Admins only.',
        operationId: 'updateGameVersion',
        params: GameVersionIdParams,
        body: UpdateGameVersionBody,
        security,
        response: { 200: ref(GameVersion), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => gameVersions.update(requireActor(request).userId, request.params.id, request.body),
  );

  app.delete(
    '/game-versions/:id',
    {
      preHandler: admins,
      schema: {
        tags,
        summary: 'Delete a game version (admin); resources listing it lose it',
        description: 'Deletes a game version; resources listing it lose it. Admins only.',
        operationId: 'deleteGameVersion',
        params: GameVersionIdParams,
        security,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await gameVersions.remove(requireActor(request).userId, request.params.id);
      return reply.status(204).send(null);
    },
  );
}
