// Every report route reaches the OpenAPI document with its operationId, the reports tag, a summary and the
// responses it can give.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { loadOpenApi } from '../helpers/openapi.js';
import type { OpenApiDocument } from '../helpers/openapi.js';

// [method, path, operationId, success status, error statuses it declares]
const REPORT_ROUTES: Array<[string, string, string, string, string[]]> = [
  ['post', '/reports/users/{userId}', 'reportUser', '201', ['400', '401', '404', '409']],
  ['post', '/reports/resources/{resourceId}', 'reportResource', '201', ['400', '401', '404', '409']],
  ['get', '/reports/me', 'listMyReports', '200', ['400', '401']],
  ['get', '/reports/{reportId}', 'getReport', '200', ['401', '404']],
  ['delete', '/reports/{reportId}', 'cancelReport', '200', ['401', '403', '404', '409']],
  ['get', '/reports/moderation/all', 'listReportsForModeration', '200', ['400', '401', '403']],
  ['get', '/reports/moderation/{reportId}', 'getReportForModeration', '200', ['401', '403', '404']],
  ['patch', '/reports/moderation/{reportId}', 'moderateReport', '200', ['400', '401', '403', '404', '409']],
  ['delete', '/reports/moderation/{reportId}', 'deleteReportForModeration', '200', ['401', '403', '404']],
];

describe('OpenAPI document: reports', () => {
  let t: TestApp;
  let document: OpenApiDocument;

  beforeAll(async () => {
    t = await buildTestApp();
    document = await loadOpenApi(t.app);
  });
  afterAll(async () => t.close());

  it('declares the reports tag', () => {
    expect(document.tags.map((tag) => tag.name)).toContain('reports');
  });

  it.each(REPORT_ROUTES)(
    '%s %s is %s, tagged, summarized, secured',
    (method, path, operationId, ok, failures) => {
      const operation = document.paths[path]?.[method];
      expect(operation, `${method} ${path} missing`).toBeDefined();
      expect(operation!.operationId).toBe(operationId);
      expect(operation!.tags).toEqual(['reports']);
      expect(operation!.summary?.length).toBeGreaterThan(0);
      expect(operation!.security).toBeDefined();
      expect(Object.keys(operation!.responses ?? {})).toEqual(expect.arrayContaining([ok, ...failures]));
    },
  );

  it('has no report operation beyond the list above', () => {
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, operation]) => operation.tags?.includes('reports'))
        .map(([method]) => `${method} ${path}`),
    );
    expect(operations.sort()).toEqual(REPORT_ROUTES.map(([method, path]) => `${method} ${path}`).sort());
  });
});
