// Resolves `x-api-key` or `Authorization: Bearer` into request.actor on every request (DESIGN §7).
// A presented credential that is unknown or expired is a 401 everywhere, so a misconfigured client
// learns at once instead of silently browsing anonymously.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { DialectName } from '../db/database.js';
import type { DB, Role } from '../db/schema.js';
import { AppError, forbidden, unauthorized } from '../http/errors.js';
import type { FailedAuthentications } from '../http/rate-limits.js';
import { CREDENTIAL_PATTERN, digest, hasValidChecksum } from './credentials.js';
import { findApiKeyOwner, findSessionOwner, touchCredential } from './credentials.repo.js';
import { hasRank } from './roles.js';
import {
  MINIMUM_ROLE,
  TEAM_REQUIREMENT,
  effectiveScopes,
  insufficientScope,
  isReadMethod,
  requiredScope,
  roleWithinScopes,
  routeScopeFacts,
  scopesForRole,
} from './scopes.js';
import type { Scope, ScopedRoute } from './scopes.js';

export interface Actor {
  userId: string;
  /** The account's role, capped by an API key's scopes (a key without `moderate` acts as a USER). */
  role: Role;
  credential: { kind: 'api_key' | 'session'; id: string };
  /** An API key's scopes; absent for sessions and internal actors, which carry every scope. */
  scopes?: ReadonlySet<Scope>;
  /**
   * A team-bound key's team, set on requests other than GET/HEAD only (reads behave as the user): the central
   * access checks refuse objects not owned by it (scopes.ts assertTeamObject).
   */
  teamId?: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    actor: Actor | null;
  }
}

/** last_used_at is written at most once a minute per credential, not on every request. */
const TOUCH_INTERVAL_MS = 60_000;

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
  dialect: DialectName;
  clock: Clock;
  /** When rate limits are on: refused credentials count against the client IP, then answer 429. */
  failedAuthentications?: FailedAuthentications | undefined;
}

async function authenticatePlugin(
  app: FastifyInstance,
  { db, dialect, clock, failedAuthentications }: AuthenticateOptions,
): Promise<void> {
  app.decorateRequest('actor', null);

  // Every route's scope facts are derived once, when it is registered (scopes.ts), and read per request below.
  const scopedRoutes: ScopedRoute[] = [];
  app.decorate('scopedRoutes', scopedRoutes);
  app.addHook('onRoute', (route) => {
    const facts = routeScopeFacts(route);
    route.config = { ...route.config, scopeFacts: facts };
    for (const method of [route.method].flat()) scopedRoutes.push({ method, url: route.url, facts });
  });

  app.addHook('onRequest', async (request, reply) => {
    let key: KeyLimits | null;
    try {
      key = await identify(request);
    } catch (error) {
      // Refusals (unknown, expired or revoked credentials; banned or suspended accounts) run before the general
      // rate limit, which needs to know the caller, so they have a budget of their own.
      const refused = error instanceof AppError && (error.statusCode === 401 || error.statusCode === 403);
      if (failedAuthentications !== undefined && refused) {
        throw await failedAuthentications.refuse(request, reply, error);
      }
      throw error;
    }
    // The credential is valid: a scope refusal is not a failed authentication.
    if (key !== null) applyKeyLimits(request, key);
  });

  /**
   * The one place scopes are enforced, in onRequest: before the body is parsed and before any handler runs.
   * Unmatched URLs (no route, so no facts) go on to their 404.
   */
  function applyKeyLimits(request: FastifyRequest, key: KeyLimits): void {
    const facts = request.routeOptions.config?.scopeFacts;
    if (facts === undefined) return;
    const required = requiredScope(facts, request.method);
    // INSUFFICIENT_SCOPE means "your key, not your account": a scope the account's role does not allow at all is
    // left to the route's own role check (403 FORBIDDEN), as for a session.
    if (!key.scopes.has(required) && scopesForRole(key.accountRole).includes(required)) {
      throw insufficientScope(required);
    }
    if (key.teamId !== null && !isReadMethod(request.method)) {
      // Safe by default: only routes whose access checks apply the team rule accept a team-bound key.
      if (!facts.teamAware) throw insufficientScope(TEAM_REQUIREMENT);
      request.actor = { ...request.actor!, teamId: key.teamId };
    }
  }

  async function identify(request: FastifyRequest): Promise<KeyLimits | null> {
    const presented = presentedCredential(request);
    if (presented === null) return null;
    // A checksummed key that fails its checksum is refused without a database read.
    if (!CREDENTIAL_PATTERN.test(presented.secret) || !hasValidChecksum(presented.secret)) {
      throw unauthorized('Invalid API key or token');
    }
    const hash = digest(presented.secret);
    const owner =
      presented.kind === 'api_key'
        ? await findApiKeyOwner(db, dialect, hash)
        : await findSessionOwner(db, dialect, hash);
    const now = clock.now();
    if (owner === undefined || (owner.expiresAt !== null && new Date(owner.expiresAt) <= now)) {
      throw unauthorized('Invalid or expired API key or token');
    }
    if (owner.status === 'BANNED') throw forbidden('This account is banned', 'ACCOUNT_BANNED');
    // Revoked by a ban that has since been lifted: the old credentials stay dead.
    if (owner.revokedAt !== null) throw unauthorized('Invalid or expired API key or token');
    const suspended =
      owner.status === 'SUSPENDED' && (owner.suspendedUntil === null || new Date(owner.suspendedUntil) > now);
    if (suspended && !isReadMethod(request.method) && !request.url.startsWith('/auth/logout')) {
      throw forbidden(
        `This account is suspended${owner.suspendedUntil ? ` until ${owner.suspendedUntil}` : ''}; it can read but not write`,
        'ACCOUNT_SUSPENDED',
      );
    }
    const scopes = owner.scopes === null ? null : effectiveScopes(owner.scopes, owner.role);
    request.actor = {
      userId: owner.userId,
      role: scopes === null ? owner.role : roleWithinScopes(owner.role, scopes),
      credential: { kind: presented.kind, id: owner.credentialId },
      ...(scopes === null ? {} : { scopes }),
    };
    if (
      owner.lastUsedAt === null ||
      now.getTime() - new Date(owner.lastUsedAt).getTime() > TOUCH_INTERVAL_MS
    ) {
      await touchCredential(db, presented.kind, owner.credentialId, now.toISOString(), request.ip);
    }
    return scopes === null ? null : { scopes, teamId: owner.teamId, accountRole: owner.role };
  }
}

/** What an API key limits (sessions: nothing). */
interface KeyLimits {
  scopes: ReadonlySet<Scope>;
  teamId: string | null;
  accountRole: Role;
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
  const check = async (request: FastifyRequest): Promise<void> => {
    const actor = requireActor(request);
    if (!hasRank(actor.role, minimum)) throw forbidden(`This action needs the ${minimum} role or higher`);
  };
  // Tagged so that the route's scope (moderate, admin) is derived from it when the route is registered.
  return Object.assign(check, { [MINIMUM_ROLE]: minimum });
}
