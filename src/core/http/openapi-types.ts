// The slice of an OpenAPI 3.1 document the post-processing steps (openapi-*.ts) read and write. Loose on
// purpose: the steps walk whatever @fastify/swagger produced and must not fail on a shape they do not know.
export type JsonSchema = Record<string, unknown>;

export interface MediaType {
  schema?: JsonSchema;
  example?: unknown;
  [key: string]: unknown;
}

export interface ResponseObject {
  description?: string;
  content?: Record<string, MediaType>;
  headers?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ParameterObject {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
  example?: unknown;
  [key: string]: unknown;
}

export interface OperationObject {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: ParameterObject[];
  requestBody?: { required?: boolean; content?: Record<string, MediaType>; [key: string]: unknown };
  responses?: Record<string, ResponseObject>;
  security?: Array<Record<string, string[]>>;
  [key: string]: unknown;
}

export interface OpenApiDocument {
  paths?: Record<string, Record<string, OperationObject>>;
  components?: {
    schemas?: Record<string, JsonSchema>;
    headers?: Record<string, unknown>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Every operation of the document with its path and method. */
export function* operationsOf(
  document: OpenApiDocument,
): Generator<{ path: string; method: string; operation: OperationObject }> {
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (operation !== undefined) yield { path, method, operation };
    }
  }
}

/** Fastify's route URL (`/teams/:id`, `/cdn/*`) as the document's path template (`/teams/{id}`, `/cdn/{*}`). */
export function documentPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*$/, '{*}');
}
