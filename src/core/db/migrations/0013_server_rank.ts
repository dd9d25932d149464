import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/** The transparent rank score and its inputs (spec/extensions.md §3). */
export function serverRank(_context: MigrationContext) {
  return {
    async up(_db: Kysely<unknown>): Promise<void> {},
    async down(_db: Kysely<unknown>): Promise<void> {},
  };
}
