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
import { locationAt } from '../../core/http/conventions/location.js';

const tags = ['auth'];

export async function authRoutes(
  fastify: FastifyInstance,
  { auth, users }: { auth: AuthService; users: UsersService },
): Promise<void> {
  const app = typed(fastify);
  app.post(
    '/auth/register',
    {
      config: { ...authAttemptLimit, location: locationAt('/users/', 'user.id') },
      schema: {
        tags,
        summary: 'Create an account',
        description:
          'Creates an account from a unique username and email and a password. Public; attempts are ' +
          'limited per client address, like login (429).',
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
        description:
          'Exchanges a username or email and the password for a bearer token valid 30 days. Public; ' +
          'attempts are limited per client address (429), and an account that may not log in gets 403.',
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
        description:
          'Revokes the bearer token that authenticated this request; later requests with it get 401. API ' +
          'keys are revoked with DELETE /users/me/api-keys/{keyId} instead.',
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
