// Small request normalizations (DESIGN §6), attached only to the routes that need them so other routes pay
// nothing:
// - text fields of JSON bodies are trimmed (passwords excepted: they are secrets, not text);
// - array query parameters accept repeats and comma-separated values.
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';

const UNTRIMMED_KEYS = new Set(['password', 'currentPassword', 'newPassword']);

function trimStrings(value: unknown, key?: string): unknown {
  if (typeof value === 'string') return key !== undefined && UNTRIMMED_KEYS.has(key) ? value : value.trim();
  if (Array.isArray(value)) return value.map((item) => trimStrings(item));
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const record = value as Record<string, unknown>;
    for (const [k, v] of Object.entries(record)) record[k] = trimStrings(v, k);
  }
  return value;
}

interface QuerySchema {
  properties?: Record<string, { type?: string }>;
}

function arrayQueryKeys(schema: QuerySchema | undefined): string[] {
  if (schema?.properties === undefined) return [];
  return Object.entries(schema.properties)
    .filter(([, property]) => property.type === 'array')
    .map(([key]) => key);
}

function splitLists(query: Record<string, unknown>, keys: readonly string[]): void {
  for (const key of keys) {
    const raw = query[key];
    if (raw === undefined) continue;
    query[key] = (Array.isArray(raw) ? raw : [raw]).flatMap((item) =>
      String(item)
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== ''),
    );
  }
}

function asArray<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

export function registerRequestShaping(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const listKeys = arrayQueryKeys(route.schema?.querystring as QuerySchema | undefined);
    const hasBody = route.schema?.body !== undefined;
    if (listKeys.length === 0 && !hasBody) return;
    const shape = async (request: FastifyRequest) => {
      if (hasBody && request.body !== undefined && request.body !== null && !request.isMultipart()) {
        request.body = trimStrings(request.body);
      }
      if (listKeys.length > 0) splitLists(request.query as Record<string, unknown>, listKeys);
    };
    route.preValidation = [shape, ...asArray(route.preValidation)];
  });
}
