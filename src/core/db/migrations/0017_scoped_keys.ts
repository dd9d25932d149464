import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/** Scoped, checkable API keys (spec/extensions.md §5). */
export function scopedKeys(_context: MigrationContext) {
  return {
    async up(_db: Kysely<unknown>): Promise<void> {},
    async down(_db: Kysely<unknown>): Promise<void> {},
  };
}
