import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/** Idempotency-Key answers kept for 24 h (issue 12). Owned by the HTTP conventions work: fill in. */
export function idempotencyKeys(_context: MigrationContext) {
  return {
    async up(_db: Kysely<unknown>): Promise<void> {},
    async down(_db: Kysely<unknown>): Promise<void> {},
  };
}
