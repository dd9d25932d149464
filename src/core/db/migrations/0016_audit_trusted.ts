import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/** The audit log and trusted creators (spec/extensions.md §4). */
export function auditTrusted(_context: MigrationContext) {
  return {
    async up(_db: Kysely<unknown>): Promise<void> {},
    async down(_db: Kysely<unknown>): Promise<void> {},
  };
}
