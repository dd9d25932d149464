import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/** Server votes, monthly counters and Votifier settings (spec/extensions.md §3). */
export function serverVotes(_context: MigrationContext) {
  return {
    async up(_db: Kysely<unknown>): Promise<void> {},
    async down(_db: Kysely<unknown>): Promise<void> {},
  };
}
