// Resolves `x-api-key` or `Authorization: Bearer` into request.actor on every request (DESIGN §7).
// A presented credential that is unknown or expired is a 401 everywhere, so a misconfigured client
// learns at once instead of silently browsing anonymously.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { DB, Role } from '../db/schema.js';
import { AppError, forbidden, unauthorized } from '../http/errors.js';
import type { FailedAuthentications } from '../http/rate-limits.js';
import { CREDENTIAL_PATTERN, digest } from './credentials.js';
import { findApiKeyOwner, findSessionOwner, touchCredential } from './credentials.repo.js';
import { hasRank } from './roles.js';

export interface Actor {
  userId: string;
  role: Role;
  credential: { kind: 'api_key' | 'session'; id: string };
}

declare module 'fastify' {
  interface FastifyRequest {
    actor: Actor | null;
  }
}

/** last_used_at is written at most once a minute per credential, not on every request. */
const TOUCH_INTERVAL_MS = 60_000;
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function presentedCredential(
  request: FastifyRequest,
): { kind: 'api_key' | 'session'; secret: string } | null {
  const apiKey = request.headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey !== '') return { kind: 'api_key', secret: apiKey.trim() };
  const authorization = request.headers.authorization;
  if (authorization !== undefined && authorization !== '') {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (match === null) throw unauthorized('Authorization header must be "Bearer <token>"');
    const secret = match[1]!;
    return { kind: secret.startsWith('mk_') ? 'api_key' : 'session', secret };
  }
  return null;
}

export interface AuthenticateOptions {
  db: Kysely<DB>;
  clock: Clock;
  /** When rate limits are on: refused credentials count against the client IP, then answer 429. */
  failedAuthentications?: FailedAuthentications | undefined;
}

async function authenticatePlugin(
  app: FastifyInstance,
  { db, clock, failedAuthentications }: AuthenticateOptions,
): Promise<void> {
  app.decorateRequest('actor', null);

  app.addHook('onRequest', async (request, reply) => {
    try {
      await identify(request);
    } catch (error) {
      // Refusals (unknown, expired or revoked credentials; banned or suspended accounts) run before the general
      // rate limit, which needs to know the caller, so they have a budget of their own.
      const refused = error instanceof AppError && (error.statusCode === 401 || error.statusCode === 403);
      if (failedAuthentications !== undefined && refused) {
        throw await failedAuthentications.refuse(request, reply, error);
      }
      throw error;
    }
  });

  async function identify(request: FastifyRequest): Promise<void> {
    const presented = presentedCredential(request);
    if (presented === null) return;
    if (!CREDENTIAL_PATTERN.test(presented.secret)) throw unauthorized('Invalid API key or token');
    const hash = digest(presented.secret);
    const owner =
      presented.kind === 'api_key' ? await findApiKeyOwner(db, hash) : await findSessionOwner(db, hash);
    const now = clock.now();
    if (owner === undefined || (owner.expiresAt !== null && new Date(owner.expiresAt) <= now)) {
      throw unauthorized('Invalid or expired API key or token');
    }
    if (owner.status === 'BANNED') throw forbidden('This account is banned', 'ACCOUNT_BANNED');
    // Revoked by a ban that has since been lifted: the old credentials stay dead.
    if (owner.revokedAt !== null) throw unauthorized('Invalid or expired API key or token');
    const suspended =
      owner.status === 'SUSPENDED' && (owner.suspendedUntil === null || new Date(owner.suspendedUntil) > now);
    if (suspended && !READ_METHODS.has(request.method) && !request.url.startsWith('/auth/logout')) {
      throw forbidden(
        `This account is suspended${owner.suspendedUntil ? ` until ${owner.suspendedUntil}` : ''}; it can read but not write`,
        'ACCOUNT_SUSPENDED',
      );
    }
    request.actor = {
      userId: owner.userId,
      role: owner.role,
      credential: { kind: presented.kind, id: owner.credentialId },
    };
    if (
      owner.lastUsedAt === null ||
      now.getTime() - new Date(owner.lastUsedAt).getTime() > TOUCH_INTERVAL_MS
    ) {
      await touchCredential(db, presented.kind, owner.credentialId, now.toISOString());
    }
  }
}

export const authenticate = fp(authenticatePlugin, { name: 'authenticate' });

/** The authenticated caller, or 401. Use in handlers of routes whose auth is "required". */
export function requireActor(request: FastifyRequest): Actor {
  if (request.actor === null) throw unauthorized();
  return request.actor;
}

/** preHandler: the route needs an authenticated caller. */
export async function requireUser(request: FastifyRequest): Promise<void> {
  requireActor(request);
}

/** preHandler factory: the route needs at least this platform role ("moderator or admin" = MODERATOR+). */
export function requireRole(minimum: Role) {
  return async (request: FastifyRequest): Promise<void> => {
    const actor = requireActor(request);
    if (!hasRank(actor.role, minimum)) throw forbidden(`This action needs the ${minimum} role or higher`);
  };
}
