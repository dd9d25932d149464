import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/** Indexes and counters for queue positions and moderation statistics (spec/extensions.md §4). */
export function moderationQueue(_context: MigrationContext) {
  return {
    async up(_db: Kysely<unknown>): Promise<void> {},
    async down(_db: Kysely<unknown>): Promise<void> {},
  };
}
