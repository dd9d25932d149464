// The §2.1 routes reach /openapi.json with operationId, tag, summary, description, security and every response.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { loadOpenApi } from '../../helpers/openapi.js';
import type { OpenApiDocument, Operation } from '../../helpers/openapi.js';

// [method, path, operationId, security (number of alternatives; 0: public), responses]
const ROUTES: Array<[string, string, string, number, string[]]> = [
  ['get', '/version-files/{hash}', 'getVersionFileByHash', 3, ['200', '400', '401', '404']],
  ['post', '/version-files/lookup', 'lookupVersionFiles', 3, ['200', '400', '401']],
  ['post', '/version-files/update', 'checkVersionFileUpdates', 3, ['200', '400', '401']],
  ['get', '/resources/{resourceId}/versions/latest', 'getLatestVersion', 0, ['200', '400', '404']],
];

describe('OpenAPI document: lookups by hash', () => {
  let t: TestApp;
  let document: OpenApiDocument;

  beforeAll(async () => {
    t = await buildTestApp();
    document = await loadOpenApi(t.app);
  });
  afterAll(async () => t.close());

  it.each(ROUTES)('%s %s is %s', (method, path, operationId, security, statuses) => {
    const operation = document.paths[path]?.[method] as (Operation & { description?: string }) | undefined;
    expect(operation, `${method} ${path} missing`).toBeDefined();
    expect(operation!.operationId).toBe(operationId);
    expect(operation!.tags).toEqual(['versions']);
    expect(operation!.summary?.length).toBeGreaterThan(0);
    expect(operation!.description?.length).toBeGreaterThan(0);
    expect(operation!.security).toHaveLength(security);
    for (const status of statuses) expect(Object.keys(operation!.responses ?? {})).toContain(status);
  });

  it('names the answer shapes: VersionFileMatch with the file, the version and the resource summary', async () => {
    const raw = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    expect(Object.keys(raw.components.schemas['VersionFileMatch']?.properties ?? {}).sort()).toEqual([
      'file',
      'resource',
      'version',
    ]);
  });
});
