// Upload operations in the OpenAPI document: every route that reads multipart (the routes the `upload` key scope
// applies to, from the app's own route table) declares a multipart/form-data requestBody with its file as binary,
// and no other operation does. A new upload route without multipartForm() fails here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartRequestBody, withMultipartBodies } from '../../src/core/http/openapi-multipart.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';

interface MediaType {
  schema: { type: string; properties: Record<string, Record<string, unknown>>; required: string[] };
}
interface DocumentOperation {
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
}
type Paths = Record<string, Record<string, DocumentOperation>>;

let t: TestApp;
let paths: Paths;
let documentText: string;

beforeAll(async () => {
  t = await buildTestApp();
  const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
  documentText = response.body;
  paths = (response.json() as { paths: Paths }).paths;
});
afterAll(async () => t.close());

/** `/resources/:id/icon` → `/resources/{id}/icon`, as the document names it. */
const documentPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const multipartOperations = () =>
  Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([, operation]) => operation.requestBody?.content['multipart/form-data'] !== undefined)
      .map(([method]) => `${method.toUpperCase()} ${path}`),
  );

describe('multipart request bodies in /openapi.json', () => {
  it('declares one for exactly the upload routes, with the file required and binary', () => {
    const uploads = t.app.scopedRoutes
      .filter((route) => route.facts.upload && route.method !== 'HEAD')
      .map((route) => `${route.method} ${documentPath(route.url)}`);
    expect(uploads.length).toBeGreaterThanOrEqual(13);
    expect(multipartOperations().sort()).toEqual([...new Set(uploads)].sort());

    for (const name of uploads) {
      const [method, path] = name.split(' ') as [string, string];
      const body = paths[path]![method.toLowerCase()]!.requestBody!;
      expect(body.required, name).toBe(true);
      expect(Object.keys(body.content), name).toEqual(['multipart/form-data']);
      const { schema } = body.content['multipart/form-data']!;
      expect(schema.required, name).toHaveLength(1);
      expect(schema.properties[schema.required[0]!], name).toMatchObject({
        type: 'string',
        format: 'binary',
      });
    }
  });

  it('names each upload’s own file field and its text fields', () => {
    const form = (path: string) => paths[path]!['post']!.requestBody!.content['multipart/form-data']!.schema;
    expect(form('/resources/{id}/icon').required).toEqual(['icon']);
    expect(form('/teams/{id}/banner').required).toEqual(['banner']);
    expect(form('/users/me/image').required).toEqual(['image']);
    const versionFile = form('/resources/{resourceId}/versions/{versionId}/files');
    expect(versionFile.required).toEqual(['file']);
    expect(versionFile.properties['displayName']).toMatchObject({ type: 'string', maxLength: 100 });
    const gallery = form('/resources/{resourceId}/gallery-images');
    expect(Object.keys(gallery.properties).sort()).toEqual(['altText', 'caption', 'image']);
  });

  it('keeps JSON bodies JSON: creating an API key is not an upload', () => {
    const createKey = paths['/users/me/api-keys']!['post']!.requestBody!;
    expect(Object.keys(createKey.content)).toEqual(['application/json']);
    expect(
      t.app.scopedRoutes.find((route) => route.url === '/users/me/api-keys' && route.method === 'POST'),
    ).toMatchObject({ facts: { upload: false } });
  });

  it('leaves no vendor marker in the document', () => {
    expect(documentText).not.toContain('x-multipart-form');
  });
});

describe('multipartRequestBody', () => {
  it('refuses a text field named like the file field', () => {
    expect(() =>
      multipartRequestBody({ file: 'file', fields: { file: { type: 'string' } as never } }),
    ).toThrow('Form field file is also the file field');
  });

  it('leaves documents without upload operations unchanged', () => {
    const document = { paths: { '/a': { get: { responses: {} } } } };
    expect(withMultipartBodies(structuredClone(document))).toEqual(document);
  });
});
