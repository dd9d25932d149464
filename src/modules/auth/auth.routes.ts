import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { typed } from '../../core/http/typed.js';
import { requireActor, requireUser } from '../../core/auth/authenticate.js';
import { SECURED } from '../../core/http/openapi.js';
import { authAttemptLimit } from '../../core/http/rate-limits.js';
import { errors } from '../../core/http/schemas.js';
import type { UsersService } from '../users/users.service.js';
import { LoginBody, LoginResponse, RegisterBody, RegisterResponse } from './auth.schemas.js';
import type { AuthService } from './auth.service.js';

const tags = ['auth'];

export async function authRoutes(
  fastify: FastifyInstance,
  { auth, users }: { auth: AuthService; users: UsersService },
): Promise<void> {
  const app = typed(fastify);
  app.post(
    '/auth/register',
    {
      config: authAttemptLimit,
      schema: {
        tags,
        summary: 'Create an account',
        operationId: 'register',
        body: RegisterBody,
        response: { 201: RegisterResponse, ...errors(400, 409, 429) },
      },
    },
    async (request, reply) => {
      const row = await auth.register(request.body);
      return reply.status(201).send({ user: await users.getPrivateProfile(row.id) });
    },
  );

  app.post(
    '/auth/login',
    {
      config: authAttemptLimit,
      schema: {
        tags,
        summary: 'Log in with username or email; returns a bearer token valid 30 days',
        operationId: 'login',
        body: LoginBody,
        response: { 200: LoginResponse, ...errors(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const session = await auth.login(request.body.login, request.body.password);
      return {
        token: session.token,
        expiresAt: session.expiresAt,
        user: await users.getPrivateProfile(session.user.id),
      };
    },
  );

  app.post(
    '/auth/logout',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Revoke the bearer token used for this request',
        operationId: 'logout',
        security: SECURED,
        response: { 204: Type.Null(), ...errors(400, 401) },
      },
    },
    async (request, reply) => {
      await auth.logout(requireActor(request));
      return reply.status(204).send(null);
    },
  );
}
