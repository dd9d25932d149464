// `Location` on every 201 (RFC 9110 §10.2.2): the root-relative URL of what was created, so it works behind any
// proxy. Resolved by rule, so routes added later get one too:
//   1. the route's own `config.location(body)` when it knows better (e.g. register → /users/{user.id});
//   2. `<request path>/<body.id>` when a GET route has the pattern `<route pattern>/:param`;
//   3. otherwise the nearest prefix of the route pattern that is a GET route (the list or parent the object now
//      appears in), with the request's own values for its parameters.
// Matching is on patterns, never on concrete paths, so `/reports/users` is not mistaken for `/reports/:reportId`.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RouteTable } from './route-table.js';
import { parseJsonPayload } from './payload.js';

export type LocationRule = (body: Record<string, unknown>) => string | undefined;
export type LocationKind = 'override' | 'child' | 'ancestor' | 'none';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Location of a 201 answer when the generic rule (location.ts) would not find the created object. */
    location?: LocationRule;
  }
}

/** Which rule gives a route's Location (the documentation test walks every 201 route with it). */
export function locationKind(table: RouteTable, routeUrl: string, hasOverride: boolean): LocationKind {
  if (hasOverride) return 'override';
  if (table.hasGetPattern(`${routeUrl.replace(/\/$/, '')}/:id`)) return 'child';
  return ancestorDepth(table, routeUrl) === undefined ? 'none' : 'ancestor';
}

/** Segments in the longest prefix of the pattern that is a GET route. */
function ancestorDepth(table: RouteTable, routeUrl: string): number | undefined {
  const segments = routeUrl.split('/').slice(1);
  for (let depth = segments.length; depth > 0; depth -= 1) {
    if (table.hasGetPattern(`/${segments.slice(0, depth).join('/')}`)) return depth;
  }
  return undefined;
}

export function locationFor(
  table: RouteTable,
  request: FastifyRequest,
  body: Record<string, unknown> | undefined,
): string | undefined {
  const override = request.routeOptions.config?.location;
  if (override !== undefined && body !== undefined) {
    const chosen = override(body);
    if (chosen !== undefined) return chosen;
  }
  const routeUrl = request.routeOptions.url ?? '';
  const path = (request.url.split('?')[0] ?? '/').replace(/\/$/, '');
  const id = body?.['id'];
  const kind = locationKind(table, routeUrl, false);
  if (kind === 'child' && (typeof id === 'string' || typeof id === 'number')) {
    return `${path}/${encodeURIComponent(String(id))}`;
  }
  const depth = ancestorDepth(table, routeUrl);
  return depth === undefined
    ? undefined
    : `/${path
        .split('/')
        .slice(1, depth + 1)
        .join('/')}`;
}

export function registerLocation(app: FastifyInstance, table: RouteTable): void {
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (reply.statusCode !== 201 || reply.hasHeader('location')) return payload;
    const location = locationFor(table, request, parseJsonPayload(payload));
    if (location !== undefined) reply.header('location', location);
    return payload;
  });
}

/** An override for `config.location`: `prefix` + the id found at `path` in the answer (`'user.id'`). */
export function locationAt(prefix: string, path = 'id'): LocationRule {
  return (body) => {
    let value: unknown = body;
    for (const key of path.split('.')) value = (value as Record<string, unknown> | undefined)?.[key];
    return typeof value === 'string' ? `${prefix}${encodeURIComponent(value)}` : undefined;
  };
}
