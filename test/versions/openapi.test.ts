// Every version, file, download and gallery route reaches the OpenAPI document with its operationId, tag,
// summary, security and error responses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { loadOpenApi } from '../helpers/openapi.js';
import type { OpenApiDocument } from '../helpers/openapi.js';

const V = '/resources/{resourceId}/versions';
const G = '/resources/{resourceId}/gallery-images';
// [method, path, operationId, tag, responses that must be declared]
const ROUTES: Array<[string, string, string, string, string[]]> = [
  ['post', V, 'createVersion', 'versions', ['201', '400', '401', '403', '404', '409']],
  ['get', V, 'listVersions', 'versions', ['200', '404']],
  ['get', `${V}/{versionId}`, 'getVersion', 'versions', ['200', '404']],
  ['get', `${V}/latest`, 'getLatestVersion', 'versions', ['200', '400', '404']],
  [
    'get',
    `${V}/{versionId}/suggestions`,
    'getVersionSuggestions',
    'versions',
    ['200', '400', '401', '403', '404'],
  ],
  ['patch', `${V}/{versionId}`, 'updateVersion', 'versions', ['200', '400', '401', '403', '404', '409']],
  ['delete', `${V}/{versionId}`, 'deleteVersion', 'versions', ['200', '401', '403', '404', '409']],
  ['patch', `${V}/{versionId}/changelog`, 'updateVersionChangelog', 'versions', ['200', '400', '403', '409']],
  ['post', `${V}/{versionId}/submit`, 'submitVersion', 'versions', ['200', '401', '403', '404', '409']],
  ['post', `${V}/{versionId}/resubmit`, 'resubmitVersion', 'versions', ['200', '401', '403', '404', '409']],
  ['post', `${V}/{versionId}/approve`, 'approveVersion', 'versions', ['200', '401', '403', '404', '409']],
  [
    'post',
    `${V}/{versionId}/reject`,
    'rejectVersion',
    'versions',
    ['200', '400', '401', '403', '404', '409'],
  ],
  ['get', `${V}/{versionId}/history`, 'getVersionHistory', 'versions', ['200', '401', '403', '404']],
  ['post', `${V}/{versionId}/archive`, 'archiveVersion', 'versions', ['200', '401', '403', '404', '409']],
  [
    'patch',
    `${V}/{versionId}/set-latest`,
    'setLatestVersion',
    'versions',
    ['200', '401', '403', '404', '409'],
  ],
  [
    'post',
    `${V}/{versionId}/files`,
    'uploadVersionFile',
    'versions',
    ['201', '400', '401', '403', '404', '409', '413'],
  ],
  [
    'delete',
    `${V}/{versionId}/files/{fileId}`,
    'deleteVersionFile',
    'versions',
    ['200', '403', '404', '409'],
  ],
  [
    'patch',
    `${V}/{versionId}/files/primary`,
    'setPrimaryVersionFile',
    'versions',
    ['200', '403', '404', '409'],
  ],
  ['get', `${V}/{versionId}/download/{fileId}`, 'downloadVersionFile', 'versions', ['302', '404']],
  ['get', `${V}/{versionId}/download`, 'downloadVersion', 'versions', ['200', '302', '404']],
  ['post', G, 'uploadGalleryImage', 'galleries', ['201', '400', '401', '403', '404', '409', '413', '415']],
  ['get', G, 'listGalleryImages', 'galleries', ['200', '404']],
  ['get', `${G}/{imageId}`, 'getGalleryImage', 'galleries', ['200', '404']],
  ['patch', `${G}/{imageId}`, 'updateGalleryImage', 'galleries', ['200', '400', '401', '403', '404']],
  [
    'post',
    `${G}/{imageId}/replace`,
    'replaceGalleryImage',
    'galleries',
    ['200', '401', '403', '404', '413', '415'],
  ],
  ['put', `${G}/reorder`, 'reorderGalleryImages', 'galleries', ['200', '400', '401', '403', '404']],
  ['delete', `${G}/{imageId}`, 'deleteGalleryImage', 'galleries', ['200', '401', '403', '404']],
];

describe('OpenAPI document: versions and galleries', () => {
  let t: TestApp;
  let document: OpenApiDocument;

  beforeAll(async () => {
    t = await buildTestApp();
    document = await loadOpenApi(t.app);
  });
  afterAll(async () => t.close());

  it('declares the versions and galleries tags', () => {
    const names = document.tags.map((tag) => tag.name);
    expect(names).toContain('versions');
    expect(names).toContain('galleries');
  });

  it('covers every route under /versions and /gallery-images, and nothing else there', () => {
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      path.includes('/versions') || path.includes('/gallery-images')
        ? Object.keys(operations).map((method) => `${method} ${path}`)
        : [],
    );
    expect(documented.sort()).toEqual(ROUTES.map(([method, path]) => `${method} ${path}`).sort());
  });

  it.each(ROUTES)('%s %s is %s', (method, path, operationId, tag, statuses) => {
    const operation = document.paths[path]?.[method];
    expect(operation, `${method} ${path} missing`).toBeDefined();
    expect(operation!.operationId).toBe(operationId);
    expect(operation!.tags).toEqual([tag]);
    expect(operation!.summary?.length).toBeGreaterThan(0);
    // Public operations say so with an empty list (test/platform/openapi-contract.test.ts checks which).
    expect(operation!.security).toBeDefined();
    for (const status of statuses) expect(Object.keys(operation!.responses ?? {})).toContain(status);
  });
});
