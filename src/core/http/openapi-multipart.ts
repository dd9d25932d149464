// Multipart upload operations in the OpenAPI document (issue 12). Fastify reads multipart bodies outside schema
// validation (src/core/http/multipart.ts), so an upload route has no `body` schema and @fastify/swagger would
// document it with no requestBody at all: /docs showed no file picker and generated clients could not call it.
//
// An upload route spreads `multipartForm({...})` into its schema instead of `consumes: [...]`. That declares the
// content type (which also makes the route need the `upload` key scope, scopes.ts) and a vendor key that
// @fastify/swagger copies verbatim onto the operation (it copies every `x-` key). withMultipartBodies() then turns
// that key into the operation's requestBody, so a new upload route is documented without touching this file.
import type { TSchema } from 'typebox';

/** The vendor key carrying a route's form from its schema to the document; removed from the final document. */
export const MULTIPART_FORM_KEY = 'x-multipart-form';

export interface MultipartFormSpec {
  /** Name of the one file field (the route reads it with readBufferedUpload/readStreamedUpload). */
  file: string;
  /** What the file may be: shown beside the file picker in /docs and in generated clients. */
  fileDescription?: string;
  /** Optional text fields sent beside the file, as JSON Schemas (e.g. TypeBox shapes). */
  fields?: Record<string, TSchema>;
}

declare module 'fastify' {
  interface FastifySchema {
    [MULTIPART_FORM_KEY]?: MultipartFormSpec;
  }
}

/** Route-schema fragment for an upload route: `schema: { ...multipartForm({ file: 'icon' }), … }`. */
export function multipartForm(spec: MultipartFormSpec): {
  consumes: string[];
  [MULTIPART_FORM_KEY]: MultipartFormSpec;
} {
  return { consumes: ['multipart/form-data'], [MULTIPART_FORM_KEY]: spec };
}

interface OperationLike {
  requestBody?: unknown;
  [MULTIPART_FORM_KEY]?: MultipartFormSpec;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** The requestBody of an upload operation: the file as binary (required), the other fields as declared. */
export function multipartRequestBody(spec: MultipartFormSpec): Record<string, unknown> {
  const fileSchema: Record<string, unknown> = { type: 'string', format: 'binary' };
  if (spec.fileDescription !== undefined) fileSchema['description'] = spec.fileDescription;
  const properties: Record<string, unknown> = { [spec.file]: fileSchema };
  for (const [name, schema] of Object.entries(spec.fields ?? {})) {
    if (name === spec.file) throw new Error(`Form field ${name} is also the file field`);
    // A JSON round trip drops TypeBox's symbol-keyed metadata, which has no place in the document.
    properties[name] = JSON.parse(JSON.stringify(schema)) as unknown;
  }
  return {
    required: true,
    content: {
      'multipart/form-data': {
        schema: { type: 'object', properties, required: [spec.file] },
      },
    },
  };
}

/** Called on the finished document (swagger `transformObject`); returns it with the upload bodies declared. */
export function withMultipartBodies<T>(document: T): T {
  const paths = (document as { paths?: Record<string, Record<string, OperationLike> | undefined> }).paths;
  for (const pathItem of Object.values(paths ?? {})) {
    if (pathItem === undefined) continue;
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      const spec = operation?.[MULTIPART_FORM_KEY];
      if (operation === undefined || spec === undefined) continue;
      operation.requestBody = multipartRequestBody(spec);
      delete operation[MULTIPART_FORM_KEY];
    }
  }
  return document;
}
