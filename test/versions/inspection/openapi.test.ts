// The suggestions route and the inspection shapes reach the OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { loadOpenApi } from '../../helpers/openapi.js';
import type { OpenApiDocument } from '../../helpers/openapi.js';

describe('OpenAPI document: inspection', () => {
  let t: TestApp;
  let document: OpenApiDocument & { components: { schemas: Record<string, unknown> } };

  beforeAll(async () => {
    t = await buildTestApp();
    document = (await loadOpenApi(t.app)) as typeof document;
  });
  afterAll(async () => t.close());

  it('documents the suggestions route with its summary, description, security and errors', () => {
    const operation = document.paths['/resources/{resourceId}/versions/{versionId}/suggestions']?.['get'] as
      (Record<string, unknown> & { responses: Record<string, unknown> }) | undefined;
    expect(operation).toMatchObject({ operationId: 'getVersionSuggestions', tags: ['versions'] });
    expect(typeof operation?.['summary']).toBe('string');
    expect(typeof operation?.['description']).toBe('string');
    expect((operation?.['security'] as unknown[]).length).toBeGreaterThan(0);
    expect(Object.keys(operation!.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '404']),
    );
  });

  it('names the inspection and suggestion shapes', () => {
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining(['FileInspection', 'VersionSuggestions']),
    );
  });
});
