// Every badge route reaches the OpenAPI document with its operationId, the badges tag, a summary and the
// responses it can give.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { loadOpenApi } from '../helpers/openapi.js';
import type { OpenApiDocument } from '../helpers/openapi.js';

// [method, path, operationId, success status, error statuses it declares, authenticated]
const BADGE_ROUTES: Array<[string, string, string, string, string[], boolean]> = [
  ['get', '/badges', 'listBadges', '200', ['400'], false],
  ['get', '/badges/{badgeId}', 'getBadge', '200', ['404'], false],
  ['get', '/badges/slug/{slug}', 'getBadgeBySlug', '200', ['404'], false],
  ['get', '/badges/users/{userId}', 'listUserBadges', '200', ['404'], false],
  ['post', '/badges', 'createBadge', '201', ['400', '401', '403', '409'], true],
  ['patch', '/badges/{badgeId}', 'updateBadge', '200', ['400', '401', '403', '404'], true],
  ['delete', '/badges/{badgeId}', 'deleteBadge', '204', ['401', '403', '404'], true],
  ['post', '/badges/award', 'awardBadge', '201', ['400', '401', '403', '404', '409'], true],
  ['delete', '/badges/{badgeId}/users/{userId}', 'revokeBadge', '200', ['401', '403', '404'], true],
];

describe('OpenAPI document: badges', () => {
  let t: TestApp;
  let document: OpenApiDocument;

  beforeAll(async () => {
    t = await buildTestApp();
    document = await loadOpenApi(t.app);
  });
  afterAll(async () => t.close());

  it('declares the badges tag', () => {
    expect(document.tags.map((tag) => tag.name)).toContain('badges');
  });

  it.each(BADGE_ROUTES)(
    '%s %s is %s, tagged, summarized',
    (method, path, operationId, ok, failures, authed) => {
      const operation = document.paths[path]?.[method];
      expect(operation, `${method} ${path} missing`).toBeDefined();
      expect(operation!.operationId).toBe(operationId);
      expect(operation!.tags).toEqual(['badges']);
      expect(operation!.summary?.length).toBeGreaterThan(0);
      if (authed) expect(operation!.security?.length).toBeGreaterThan(0);
      // Public operations say so with an empty list (the document's convention, issue 12).
      else expect(operation!.security).toEqual([]);
      expect(Object.keys(operation!.responses ?? {})).toEqual(expect.arrayContaining([ok, ...failures]));
    },
  );

  it('has no badge operation beyond the list above', () => {
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, operation]) => operation.tags?.includes('badges'))
        .map(([method]) => `${method} ${path}`),
    );
    expect(operations.sort()).toEqual(BADGE_ROUTES.map(([method, path]) => `${method} ${path}`).sort());
  });
});
