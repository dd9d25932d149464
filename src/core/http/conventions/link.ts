// `Link` (RFC 8288) beside the body's `meta` on every list whose answer carries PageMeta: first, prev, next and
// last as root-relative URLs. They page with `limit` and `offset`, which every such list accepts (page-based lists
// too, see pagination.ts), and keep the caller's other parameters.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { MAX_OFFSET, namedSchemas } from '../schemas.js';
import { parseJsonPayload } from './payload.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set at registration for routes whose 200 answer has `meta: PageMeta`. */
    pagedList?: boolean;
  }
}

interface Meta {
  total: number;
  limit: number;
  offset: number;
}

/** True when a 200 schema has `meta` referencing PageMeta. */
export function answersWithPageMeta(route: RouteOptions): boolean {
  const response = (route.schema?.response ?? {}) as Record<string, unknown>;
  let ok = response['200'] as ObjectSchema | undefined;
  // A named answer (`ref(ResourceList)`) is looked up among the registered shapes.
  const id = ok?.$ref?.replace(/#$/, '');
  if (id !== undefined)
    ok = namedSchemas().find((schema) => (schema as { $id?: string }).$id === id) as ObjectSchema | undefined;
  return ok?.properties?.['meta']?.$ref?.startsWith('PageMeta') === true;
}

interface ObjectSchema {
  $ref?: string;
  properties?: Record<string, { $ref?: string }>;
}

// fast-json-stringify writes properties in schema order, so the common case needs no full parse.
const META = /"meta":\{"total":(\d+),"limit":(\d+),"offset":(\d+)/;

function metaOf(payload: unknown): Meta | undefined {
  const text = typeof payload === 'string' ? payload : undefined;
  const match = text === undefined ? null : META.exec(text);
  if (match !== null) return { total: Number(match[1]), limit: Number(match[2]), offset: Number(match[3]) };
  const meta = parseJsonPayload(payload)?.['meta'] as Partial<Meta> | undefined;
  if (typeof meta?.total !== 'number' || typeof meta.limit !== 'number' || typeof meta.offset !== 'number') {
    return undefined;
  }
  return { total: meta.total, limit: meta.limit, offset: meta.offset };
}

export function linkHeader(url: string, meta: Meta): string | undefined {
  const { total, limit, offset } = meta;
  if (limit < 1) return undefined;
  const [path, query = ''] = url.split('?') as [string, string?];
  const at = (target: number) => {
    const params = new URLSearchParams(query);
    params.delete('page');
    params.delete('offset');
    params.set('limit', String(limit));
    params.set('offset', String(target));
    return `<${path}?${params.toString()}>`;
  };
  const last = Math.min(Math.floor(Math.max(total - 1, 0) / limit) * limit, MAX_OFFSET);
  const links = [`${at(0)}; rel="first"`];
  if (offset > 0) links.push(`${at(Math.min(Math.max(offset - limit, 0), last))}; rel="prev"`);
  if (offset + limit < total && offset + limit <= MAX_OFFSET) links.push(`${at(offset + limit)}; rel="next"`);
  links.push(`${at(last)}; rel="last"`);
  return links.join(', ');
}

export function registerLinks(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (answersWithPageMeta(route)) route.config = { ...route.config, pagedList: true };
  });
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (reply.statusCode !== 200 || request.routeOptions.config?.pagedList !== true) return payload;
    const meta = metaOf(payload);
    const link = meta === undefined ? undefined : linkHeader(request.url, meta);
    if (link !== undefined) reply.header('link', link);
    return payload;
  });
}
