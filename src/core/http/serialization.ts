// Response serializers, compiled once per distinct response schema instead of once per route and status.
// fast-json-stringify validates and loads every shared schema (app.addSchema) again for each schema it compiles,
// so with ~250 routes × their statuses (most of them the same `errorRef`) compiling took seconds per app start
// (measured: ready() 3.4–4.7 s → 1.1–1.5 s). A serializer depends only on its schema, the shared schemas and the
// options, which are one set per app.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { Serializer, SerializerFactory } from '@fastify/fast-json-stringify-compiler';

export function serializerFactory(): SerializerFactory {
  const select = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = select(externalSchemas, options);
    // Keyed by the schema's JSON: equal schemas written as separate objects (`ref(X)` per route) share one.
    const compiled = new Map<string, Serializer>();
    return (route) => {
      const key = JSON.stringify(route.schema);
      let serialize = compiled.get(key);
      if (serialize === undefined) {
        serialize = compile(route);
        compiled.set(key, serialize);
      }
      return serialize;
    };
  };
}
