// Scoped API keys (spec/extensions.md §5): which scope each route needs, derived once per route when it is
// registered, and the team restriction of keys bound to a team. authenticate.ts applies both right after it has
// identified the caller, in onRequest: a refused request never has its body parsed nor its handler run.
import type { RouteOptions } from 'fastify';
import type { Role } from '../db/schema.js';
import { AppError } from '../http/errors.js';
import type { OwnerRef } from './access.js';
import { hasRank } from './roles.js';

export const SCOPES = ['read', 'write', 'upload', 'moderate', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** What `details.required` names when a team-bound key acts outside its team. */
export const TEAM_REQUIREMENT = 'team';

/** The scopes a role may hold: USER read/write/upload, MODERATOR +moderate, ADMIN and SUPER_ADMIN +admin. */
export function scopesForRole(role: Role): Scope[] {
  const scopes: Scope[] = ['read', 'write', 'upload'];
  if (hasRank(role, 'MODERATOR')) scopes.push('moderate');
  if (hasRank(role, 'ADMIN')) scopes.push('admin');
  return scopes;
}

/** Stored as a space-separated list in SCOPES order, so equal sets are equal strings. */
export const formatScopes = (scopes: Iterable<Scope>): string => {
  const set = new Set(scopes);
  return SCOPES.filter((scope) => set.has(scope)).join(' ');
};

export const parseScopes = (stored: string): Scope[] =>
  stored.split(' ').filter((part): part is Scope => (SCOPES as readonly string[]).includes(part));

/**
 * What a key may do at this moment: its stored scopes cut down to what the owner's role allows now, so a key of a
 * demoted moderator loses `moderate` without being edited.
 */
export const effectiveScopes = (stored: string, role: Role): ReadonlySet<Scope> => {
  const allowed = new Set(scopesForRole(role));
  return new Set(parseScopes(stored).filter((scope) => allowed.has(scope)));
};

/**
 * The role a service sees for a key without `moderate` or `admin`: capped, so checks made inside services
 * ("moderators also see pending resources") follow the key's scopes and not only the account's role.
 */
export function roleWithinScopes(role: Role, scopes: ReadonlySet<Scope>): Role {
  if (hasRank(role, 'ADMIN') && !scopes.has('admin')) role = 'MODERATOR';
  if (hasRank(role, 'MODERATOR') && !scopes.has('moderate')) role = 'USER';
  return role;
}

export const insufficientScope = (required: Scope | typeof TEAM_REQUIREMENT, message?: string) =>
  new AppError(
    403,
    'INSUFFICIENT_SCOPE',
    message ??
      (required === TEAM_REQUIREMENT
        ? 'This API key is bound to a team and may only change that team and its resources and servers'
        : `This API key lacks the "${required}" scope`),
    { required },
  );

// ---------------------------------------------------------------------------------------------------------------
// Per-route requirements

/** Tag that requireRole() puts on the preHandler it returns, so the route's minimum role is known statically. */
export const MINIMUM_ROLE = Symbol('minimumRole');

/**
 * Route config a route may declare (`config: { scope: …, teamAware: true }`):
 * - scope: the scope the route needs when it cannot be derived (a role checked inside a service);
 * - teamAware: the route's access checks apply the team rule (assertTeamObject), so team-bound keys may call it
 *   with a method other than GET. Every other non-GET route refuses team-bound keys.
 */
export interface ScopeRouteConfig {
  scope?: Scope;
  teamAware?: boolean;
}

/** The facts a route's requirement is derived from (kept on the route's config, read per request). */
export interface RouteScopeFacts {
  minimumRole: Role | null;
  upload: boolean;
  declaredScope: Scope | null;
  teamAware: boolean;
}

/** One entry of the route table the scope rules apply to (app.scopedRoutes: tests and docs read it). */
export interface ScopedRoute {
  method: string;
  url: string;
  facts: RouteScopeFacts;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    scope?: Scope;
    teamAware?: boolean;
    scopeFacts?: RouteScopeFacts;
  }
  interface FastifyInstance {
    /** Every route registered after authentication, with the facts its scope is derived from. */
    scopedRoutes: ScopedRoute[];
  }
}

/**
 * Non-GET routes whose access checks are team-aware (they end in access.authorize, resourceAccess.authorize or
 * authorizeCreate, serverAccess.authorize or servers' owner checks, all of which call assertTeamObject). Listed
 * here, next to the rule, so that one review shows every route a team-bound key may change things through; a
 * route may also declare `config: { teamAware: true }` itself.
 */
const TEAM_AWARE_ROUTES: ReadonlySet<string> = new Set([
  'POST /teams/:id/logo',
  'DELETE /teams/:id/logo',
  'POST /teams/:id/banner',
  'DELETE /teams/:id/banner',
  'PATCH /teams/:id',
  'POST /teams/:id/invitations',
  'DELETE /teams/:id/invitations/:invitationId',
  'PATCH /teams/:id/members/:memberId',
  'DELETE /teams/:id/members/:memberId',
  'POST /teams/:id/social-links',
  'PATCH /teams/:id/social-links/reorder',
  'PATCH /teams/:id/social-links/:linkId',
  'DELETE /teams/:id/social-links/:linkId',
  'POST /resources',
  'PATCH /resources/:id',
  'DELETE /resources/:id',
  'POST /resources/:id/icon',
  'DELETE /resources/:id/icon',
  'POST /resources/:id/banner',
  'DELETE /resources/:id/banner',
  'POST /resources/:id/external-links',
  'PATCH /resources/:id/external-links/reorder',
  'PATCH /resources/:id/external-links/:linkId',
  'DELETE /resources/:id/external-links/:linkId',
  'POST /resources/:resourceId/contributors',
  'PATCH /resources/:resourceId/contributors/:userId',
  'DELETE /resources/:resourceId/contributors/:userId',
  'POST /resources/:resourceId/versions',
  'PATCH /resources/:resourceId/versions/:versionId',
  'DELETE /resources/:resourceId/versions/:versionId',
  'PATCH /resources/:resourceId/versions/:versionId/changelog',
  'PATCH /resources/:resourceId/versions/:versionId/set-latest',
  'POST /resources/:resourceId/versions/:versionId/submit',
  'POST /resources/:resourceId/versions/:versionId/resubmit',
  'POST /resources/:resourceId/versions/:versionId/archive',
  'POST /resources/:resourceId/versions/:versionId/files',
  'DELETE /resources/:resourceId/versions/:versionId/files/:fileId',
  'PATCH /resources/:resourceId/versions/:versionId/files/primary',
  'POST /resources/:resourceId/gallery-images',
  'PUT /resources/:resourceId/gallery-images/reorder',
  'PATCH /resources/:resourceId/gallery-images/:imageId',
  'DELETE /resources/:resourceId/gallery-images/:imageId',
  'POST /resources/:resourceId/gallery-images/:imageId/replace',
  'POST /resources/description-images/:resourceId/upload',
  'DELETE /resources/description-images/:resourceId/:imageId',
  'POST /servers',
  'PATCH /servers/:id',
  'DELETE /servers/:id',
  'POST /servers/:id/logo',
  'DELETE /servers/:id/logo',
  'POST /servers/:id/banner',
  'DELETE /servers/:id/banner',
  'POST /servers/:id/status',
  'POST /servers/:id/keys',
  'DELETE /servers/:id/keys/:keyId',
  'PUT /servers/:id/votifier',
  'DELETE /servers/:id/votifier',
  'POST /servers/:id/social-links',
  'PATCH /servers/:id/social-links/reorder',
  'PATCH /servers/:id/social-links/:linkId',
  'DELETE /servers/:id/social-links/:linkId',
  'POST /servers/description-images/:serverId/upload',
  'DELETE /servers/description-images/:serverId/:imageId',
]);

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const isReadMethod = (method: string): boolean => READ_METHODS.has(method.toUpperCase());

function hooksOf(route: RouteOptions): unknown[] {
  const hooks: unknown[] = [];
  for (const name of ['onRequest', 'preParsing', 'preValidation', 'preHandler'] as const) {
    const value = route[name] as unknown;
    if (Array.isArray(value)) hooks.push(...(value as unknown[]));
    else if (value !== undefined) hooks.push(value);
  }
  return hooks;
}

/** Derives a route's facts when it is registered (an onRoute hook). */
export function routeScopeFacts(route: RouteOptions): RouteScopeFacts {
  let minimumRole: Role | null = null;
  for (const hook of hooksOf(route)) {
    const role = (hook as { [MINIMUM_ROLE]?: Role } | null)?.[MINIMUM_ROLE];
    if (role !== undefined && (minimumRole === null || hasRank(role, minimumRole))) minimumRole = role;
  }
  const consumes = (route.schema as { consumes?: unknown } | undefined)?.consumes;
  const upload = Array.isArray(consumes) && consumes.includes('multipart/form-data');
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const teamAware =
    route.config?.teamAware === true ||
    methods.some((method) => TEAM_AWARE_ROUTES.has(`${method} ${route.url}`));
  return { minimumRole, upload, declaredScope: route.config?.scope ?? null, teamAware };
}

/** The one scope a request to a route with these facts needs (the most specific rule wins). */
export function requiredScope(facts: RouteScopeFacts, method: string): Scope {
  if (facts.declaredScope !== null) return facts.declaredScope;
  if (facts.minimumRole !== null && hasRank(facts.minimumRole, 'ADMIN')) return 'admin';
  if (facts.minimumRole !== null && hasRank(facts.minimumRole, 'MODERATOR')) return 'moderate';
  if (isReadMethod(method)) return 'read';
  return facts.upload ? 'upload' : 'write';
}

// ---------------------------------------------------------------------------------------------------------------
// The team rule, applied by the central access checks

/** The part of an Actor the team rule needs. */
export interface TeamBound {
  /** The key's team for a request that changes something; null (or absent) when unrestricted. */
  teamId?: string | null;
}

/**
 * A team-bound key changes only objects its team owns: throws 403 INSUFFICIENT_SCOPE (required: 'team') unless
 * `owner` is that team. No effect for unrestricted callers and for reads (teamId is only set on writes).
 */
export function assertTeamObject(actor: TeamBound | null, owner: OwnerRef): void {
  const teamId = actor?.teamId ?? null;
  if (teamId === null) return;
  if (owner.ownerType !== 'TEAM' || owner.ownerId !== teamId) throw insufficientScope(TEAM_REQUIREMENT);
}
