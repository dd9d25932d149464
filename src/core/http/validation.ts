// Validation with two Ajv configurations: path and query values arrive as strings and are coerced to their
// schema types ("?limit=20" → 20), while JSON bodies are checked strictly, so `{"accept": null}` or
// `{"port": "80"}` is a 400 instead of being quietly read as false or 80.
import { AjvCompiler } from '@fastify/ajv-compiler';
import type { ValidatorFactory } from '@fastify/ajv-compiler';

const COMMON = { removeAdditional: true, useDefaults: true, allErrors: false } as const;

interface RouteSchema {
  httpPart?: string;
}
type Compile = (route: RouteSchema) => unknown;
interface CompilerOptions {
  customOptions?: Record<string, unknown>;
}
// The published types describe the pool's compiler as taking a bare schema; at run time Fastify calls it with
// the route definition ({ schema, method, url, httpPart }), which is what we dispatch on.
type Pool = (externalSchemas: unknown, options: CompilerOptions) => Compile;

export function validatorFactory(): ValidatorFactory {
  const pool = AjvCompiler() as unknown as Pool;
  const factory = (externalSchemas: unknown, ajvOptions: CompilerOptions): Compile => {
    const withCoercion = (coerceTypes: false | 'array') =>
      pool(externalSchemas, {
        ...ajvOptions,
        customOptions: { ...ajvOptions.customOptions, ...COMMON, coerceTypes },
      });
    const strict = withCoercion(false);
    const coercing = withCoercion('array');
    return (route) => (route.httpPart === 'body' ? strict(route) : coercing(route));
  };
  return factory as unknown as ValidatorFactory;
}
