// Which database errors mean "this transaction lost to a concurrent one" (answered 503 with Retry-After: 1 by the
// error handler; test/resources/counter-locks.pg.test.ts drives a real deadlock through the app). A serialization
// failure cannot be provoked through the app (it runs at READ COMMITTED), so its classification is pinned here.
import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable, isTransactionConflict } from '../../src/core/db/unavailable.js';

const pgError = (code: string) => Object.assign(new Error(`pg ${code}`), { code });

describe('isTransactionConflict', () => {
  it('is true for PostgreSQL 40P01 (deadlock) and 40001 (serialization failure), also wrapped as a cause', () => {
    expect(isTransactionConflict(pgError('40P01'))).toBe(true);
    expect(isTransactionConflict(pgError('40001'))).toBe(true);
    expect(isTransactionConflict(new Error('wrapped', { cause: pgError('40001') }))).toBe(true);
  });

  it('is false for other errors, which keep their own answers', () => {
    for (const code of ['23505', '40002', '40P0', '57P01', 'SQLITE_BUSY']) {
      expect(isTransactionConflict(pgError(code))).toBe(false);
    }
    expect(isTransactionConflict(new Error('no code'))).toBe(false);
    expect(isTransactionConflict(null)).toBe(false);
    // A conflict is not an outage (its Retry-After is 1 s, not 5).
    expect(isDatabaseUnavailable(pgError('40P01'))).toBe(false);
  });
});
