// What the OpenAPI document cannot see in a route's schema but the responses step needs: whether the route is
// rate limited and whether it takes an upload. Collected once per route by an onRoute hook registered before
// every module, so routes added later (by any module) are covered without a list of paths.
import type { FastifyInstance, RouteOptions } from 'fastify';
import { documentPath } from './openapi-types.js';

export interface RouteFacts {
  /** The global per-minute limit applies (routes opt out with `config: { rateLimit: false }`). */
  rateLimited: boolean;
  /** multipart/form-data upload (`schema.consumes`): 413 for a file too large, 415 for a refused type. */
  upload: boolean;
}

/** Facts per operation, keyed `METHOD /document/{path}`. */
export type RouteFactsTable = Map<string, RouteFacts>;

export const routeFactsKey = (method: string, path: string): string => `${method.toUpperCase()} ${path}`;

export function collectRouteFacts(app: FastifyInstance): RouteFactsTable {
  const table: RouteFactsTable = new Map();
  app.addHook('onRoute', (route: RouteOptions) => {
    const config = route.config as { rateLimit?: unknown } | undefined;
    const consumes = (route.schema as { consumes?: unknown } | undefined)?.consumes;
    const facts: RouteFacts = {
      rateLimited: config?.rateLimit !== false,
      upload: Array.isArray(consumes) && consumes.includes('multipart/form-data'),
    };
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) table.set(routeFactsKey(method, documentPath(route.url)), facts);
  });
  return table;
}
