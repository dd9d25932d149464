// Named shapes no operation reaches (a shape registered for one module's inner use, or one a route stopped
// using) are dropped from components.schemas: a client generator would emit a type nothing returns.
import type { OpenApiDocument } from './openapi-types.js';

const SCHEMA_REF = /^#\/components\/schemas\/(.+)$/;

function collectRefs(value: unknown, into: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) collectRefs(item, into);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') {
        const match = SCHEMA_REF.exec(child);
        if (match) into.push(match[1]!);
      } else {
        collectRefs(child, into);
      }
    }
  }
}

export function withoutUnusedSchemas<T>(document: T): T {
  const doc = document as OpenApiDocument;
  const schemas = doc.components?.schemas;
  if (schemas === undefined) return document;
  const pending: string[] = [];
  collectRefs(doc.paths, pending);
  collectRefs(doc.components?.headers, pending);
  const used = new Set<string>();
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (used.has(name)) continue;
    used.add(name);
    collectRefs(schemas[name], pending);
  }
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
  return document;
}
