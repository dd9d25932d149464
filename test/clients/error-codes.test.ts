// Typed errors (issue 12): the document's Error.code is the closed list of codes the type checker enforces on
// every AppError, and the client's KnownErrorCode is that same union.
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { KnownErrorCode } from '../../clients/typescript/src/index.js';
import { ERROR_CODES } from '../../src/core/http/error-codes.js';
import type { ErrorCode } from '../../src/core/http/error-codes.js';
import { buildTestApp } from '../helpers/app.js';

describe('error codes', () => {
  it('are an enum in the document, equal to the list AppError accepts', async () => {
    const t = await buildTestApp();
    try {
      const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
        components: { schemas: { Error: { properties: { code: { enum: string[] } } } } };
      }>();
      expect(document.components.schemas.Error.properties.code.enum).toEqual([...ERROR_CODES]);
      expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);

      // An error the app really sends carries a listed code.
      const missing = await t.app.inject({
        method: 'GET',
        url: '/resources/01a20d29-0000-7000-8000-000000000000',
      });
      expect(ERROR_CODES).toContain(missing.json<{ code: string }>().code);
    } finally {
      await t.close();
    }
  });

  it('are the same union in the typed client', () => {
    expectTypeOf<KnownErrorCode>().toEqualTypeOf<ErrorCode>();
  });
});
