// 405 Method Not Allowed with `Allow` for a path that exists under other methods (RFC 9110 §15.5.6). Unknown
// paths stay 404. Called from the one not-found handler (error-handler.ts), so the answer has the one error shape.
import type { FastifyRequest } from 'fastify';
import type { RouteTable } from './route-table.js';

declare module 'fastify' {
  interface FastifyInstance {
    routeTable: RouteTable;
  }
}

/** The methods this request's path allows, or an empty list when the path itself is unknown. */
export function allowedMethods(request: FastifyRequest): string[] {
  const table = request.server.routeTable as RouteTable | undefined;
  if (table === undefined) return [];
  return table.methodsFor(request.url.split('?')[0] ?? '/');
}
