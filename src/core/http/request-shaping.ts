// Small request normalizations that every route gets (DESIGN §6):
// - text fields of JSON bodies are trimmed (passwords excepted: they are secrets, not text);
// - array query parameters accept repeats and comma-separated values.
import type { FastifyInstance, FastifyRequest } from 'fastify';

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

function arrayQueryKeys(request: FastifyRequest): string[] {
  const schema = request.routeOptions.schema?.querystring as QuerySchema | undefined;
  if (schema?.properties === undefined) return [];
  return Object.entries(schema.properties)
    .filter(([, property]) => property.type === 'array')
    .map(([key]) => key);
}

export function registerRequestShaping(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    if (request.body !== undefined && request.body !== null && !request.isMultipart()) {
      request.body = trimStrings(request.body);
    }
    const keys = arrayQueryKeys(request);
    if (keys.length === 0) return;
    const query = request.query as Record<string, unknown>;
    for (const key of keys) {
      const raw = query[key];
      if (raw === undefined) continue;
      const values = (Array.isArray(raw) ? raw : [raw]).flatMap((item) =>
        String(item)
          .split(',')
          .map((part) => part.trim())
          .filter((part) => part !== ''),
      );
      query[key] = values;
    }
  });
}
