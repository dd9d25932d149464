import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/** Per-minute samples and hourly rollups of server status (spec/extensions.md §3). */
export function serverHistory(_context: MigrationContext) {
  return {
    async up(_db: Kysely<unknown>): Promise<void> {},
    async down(_db: Kysely<unknown>): Promise<void> {},
  };
}
