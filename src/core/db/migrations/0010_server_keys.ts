import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/** Server keys and heartbeats (spec/extensions.md §3). */
export function serverKeys(_context: MigrationContext) {
  return {
    async up(_db: Kysely<unknown>): Promise<void> {},
    async down(_db: Kysely<unknown>): Promise<void> {},
  };
}
