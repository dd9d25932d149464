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
    return (route) =>
      route.httpPart === 'body' ? strict(route) : onlyFiniteNumbers(coercing(route) as Validate);
  };
  return factory as unknown as ValidatorFactory;
}

interface Validate {
  (data: unknown): boolean;
  errors?: unknown[] | null;
}

/**
 * Ajv coerces "Infinity" to Infinity for an integer and then skips `minimum`/`maximum` for a non-finite number,
 * so `?limit=Infinity` passed validation and reached the database. Path and query values are flat (scalars or
 * arrays of scalars), so one pass over them after Ajv closes that gap for every parameter.
 */
function onlyFiniteNumbers(validate: Validate): Validate {
  const checked: Validate = (data) => {
    if (!validate(data)) {
      checked.errors = validate.errors ?? null;
      return false;
    }
    checked.errors = null;
    if (data === null || typeof data !== 'object') return true;
    for (const [key, value] of Object.entries(data)) {
      const values: unknown[] = Array.isArray(value) ? value : [value];
      if (values.some((item) => typeof item === 'number' && !Number.isFinite(item))) {
        checked.errors = [
          { instancePath: `/${key}`, keyword: 'type', params: {}, message: 'must be a finite number' },
        ];
        return false;
      }
    }
    return true;
  };
  return checked;
}
