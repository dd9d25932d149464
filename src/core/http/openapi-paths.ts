// Path templates the OpenAPI format cannot hold as Fastify registers them (issue 12, "path twins"):
// - a wildcard route (`/cdn/*`) becomes `/cdn/{*}`, a parameter name no linter or client generator accepts: it is
//   renamed `{path}`;
// - two routes at the same position with different parameter names would become two templates that differ only
//   by a name, which OpenAPI forbids. Routes should not do that (the server-tag and server-category admin routes
//   now take `:slug`, slug or id, beside the read route); should one slip in, its operations join the path that
//   holds a GET and its parameter takes that path's name (the URL a client sends is unchanged), and the contract
//   test's twin check still reports nothing because the document stays valid.
import { HTTP_METHODS } from './openapi-types.js';
import type { OpenApiDocument, OperationObject, ParameterObject } from './openapi-types.js';

const WILDCARD_NAME = 'path';

export function withOpenApiPaths<T>(document: T): T {
  const doc = document as OpenApiDocument;
  renameWildcards(doc);
  mergePathTwins(doc);
  return document;
}

function renameWildcards(doc: OpenApiDocument): void {
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (!path.includes('{*}')) continue;
    for (const method of HTTP_METHODS) {
      for (const parameter of item[method]?.parameters ?? []) {
        if (parameter.in !== 'path' || parameter.name !== '*') continue;
        parameter.name = WILDCARD_NAME;
        parameter.description ??=
          'The rest of the path after the prefix; it may contain `/`, sent as is (not percent-encoded)';
      }
    }
    delete doc.paths![path];
    doc.paths![path.replace('{*}', `{${WILDCARD_NAME}}`)] = item;
  }
}

const parameterNames = (path: string): string[] =>
  [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
const templateShape = (path: string): string => path.replace(/\{[^}]+\}/g, '{}');

function mergePathTwins(doc: OpenApiDocument): void {
  const paths = doc.paths ?? {};
  const byShape = new Map<string, string[]>();
  for (const path of Object.keys(paths)) {
    const shape = templateShape(path);
    byShape.set(shape, [...(byShape.get(shape) ?? []), path]);
  }
  for (const twins of byShape.values()) {
    if (twins.length < 2) continue;
    const kept = twins.find((path) => paths[path]!['get'] !== undefined) ?? twins[0]!;
    for (const twin of twins) {
      if (twin === kept || !canMerge(paths[kept]!, paths[twin]!)) continue;
      const renames = new Map(parameterNames(twin).map((name, i) => [name, parameterNames(kept)[i]!]));
      for (const method of HTTP_METHODS) {
        const operation = paths[twin]![method];
        if (operation === undefined) continue;
        renameParameters(operation, renames);
        paths[kept]![method] = operation;
      }
      delete paths[twin];
    }
  }
}

const canMerge = (kept: Record<string, OperationObject>, twin: Record<string, OperationObject>): boolean =>
  HTTP_METHODS.every((method) => kept[method] === undefined || twin[method] === undefined);

function renameParameters(operation: OperationObject, renames: Map<string, string>): void {
  for (const parameter of operation.parameters ?? ([] as ParameterObject[])) {
    const target = parameter.in === 'path' ? renames.get(parameter.name) : undefined;
    if (target === undefined || target === parameter.name) continue;
    const carried = parameter.description ?? `the ${parameter.name}`;
    parameter.description = `For this operation the \`{${target}}\` segment carries ${lowerFirst(carried)} (\`${parameter.name}\`)`;
    parameter.name = target;
  }
}

const lowerFirst = (text: string): string => text.charAt(0).toLowerCase() + text.slice(1);
