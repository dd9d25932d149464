// The feed routes reach the OpenAPI document: operationId, tag, summary and description, their parameters, an
// Atom 200 and JSON errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { loadOpenApi } from '../helpers/openapi.js';
import type { OpenApiDocument } from '../helpers/openapi.js';

interface FeedOperation {
  operationId: string;
  tags: string[];
  summary: string;
  description: string;
  security?: unknown[];
  parameters: Array<{ in: string; name: string }>;
  responses: Record<string, { content: Record<string, unknown> }>;
}

// [path, operationId, parameters]
const ROUTES: Array<[string, string, string[]]> = [
  ['/resources/feed.atom', 'getResourcesFeed', ['query type', 'query tags', 'query categories']],
  ['/resources/{id}/feed.atom', 'getResourceFeed', ['path id']],
  ['/users/{userId}/feed.atom', 'getUserFeed', ['path userId']],
  ['/teams/{id}/feed.atom', 'getTeamFeed', ['path id']],
];

describe('OpenAPI document: feeds', () => {
  let t: TestApp;
  let document: OpenApiDocument;

  beforeAll(async () => {
    t = await buildTestApp();
    document = await loadOpenApi(t.app);
  });
  afterAll(async () => t.close());

  it('declares the feeds tag', () => {
    expect(document.tags.map((tag) => tag.name)).toContain('feeds');
  });

  it.each(ROUTES)('GET %s is %s', (path, operationId, parameters) => {
    const operation = document.paths[path]?.['get'] as FeedOperation | undefined;
    expect(operation, `GET ${path} missing`).toBeDefined();
    expect(operation!.operationId).toBe(operationId);
    expect(operation!.tags).toEqual(['feeds']);
    expect(operation!.summary.length).toBeGreaterThan(0);
    expect(operation!.description).toContain('Atom 1.0');
    // Public: no credentials asked for.
    expect(operation!.security ?? []).toEqual([]);
    expect(operation!.parameters.map((parameter) => `${parameter.in} ${parameter.name}`)).toEqual(parameters);
    expect(Object.keys(operation!.responses['200']!.content)).toEqual(['application/atom+xml']);
    for (const status of ['400', '404']) {
      expect(Object.keys(operation!.responses[status]!.content)).toEqual(['application/json']);
    }
  });

  it('has no feed operation beyond the list above', () => {
    const feeds = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, operation]) => operation.tags?.includes('feeds'))
        .map(([method]) => `${method} ${path}`),
    );
    expect(feeds.sort()).toEqual(ROUTES.map(([path]) => `get ${path}`).sort());
  });
});
