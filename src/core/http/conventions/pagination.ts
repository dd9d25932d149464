// Pagination both ways (issue 12): every list pages with `limit` and `offset`, and the page-based lists (those
// whose query has `page`) accept `offset` too. There the offset must fall on a page boundary (a multiple of
// `limit`, as a client paging with offset+=limit always sends) and is turned into its page here, before the
// handler runs; an offset between pages, or a `page` that disagrees with the `offset`, is a 400 rather than a
// silently different page.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set at registration for routes whose query has both `page` and `offset`. */
    pageAndOffset?: boolean;
  }
}

interface PagedQuery {
  page?: number;
  limit?: number;
  offset?: number;
}

function queryProperties(schema: unknown): Record<string, unknown> {
  return ((schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {}) as Record<
    string,
    unknown
  >;
}

function sentParameters(request: FastifyRequest): URLSearchParams {
  const at = request.url.indexOf('?');
  return new URLSearchParams(at === -1 ? '' : request.url.slice(at + 1));
}

export function registerPagination(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const properties = queryProperties(route.schema?.querystring);
    if ('page' in properties && 'offset' in properties)
      route.config = { ...route.config, pageAndOffset: true };
  });
  app.addHook('preHandler', async (request) => {
    if (request.routeOptions.config?.pageAndOffset !== true) return;
    const sent = sentParameters(request);
    if (!sent.has('offset')) return;
    const query = request.query as PagedQuery;
    const offset = query.offset ?? 0;
    const limit = query.limit ?? 20;
    if (offset % limit !== 0) {
      throw badRequest(`querystring.offset must be a multiple of limit (${limit}) on this page-based list`, {
        fields: { 'querystring.offset': `must be a multiple of ${limit}` },
      });
    }
    const page = offset / limit + 1;
    if (sent.has('page') && query.page !== page) {
      throw badRequest(
        `querystring.page (${query.page}) and querystring.offset (${offset}) name different pages`,
        {
          fields: { 'querystring.page': `must be ${page} with offset ${offset}, or left out` },
        },
      );
    }
    query.page = page;
  });
}
