import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/** Version dependencies (spec/extensions.md §2.2). Owned by the dependencies work: fill in. */
export function versionDependencies(_context: MigrationContext) {
  return {
    async up(_db: Kysely<unknown>): Promise<void> {},
    async down(_db: Kysely<unknown>): Promise<void> {},
  };
}
