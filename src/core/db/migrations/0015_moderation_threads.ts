import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/** Moderation threads between owner sides and moderators (spec/extensions.md §4). */
export function moderationThreads(_context: MigrationContext) {
  return {
    async up(_db: Kysely<unknown>): Promise<void> {},
    async down(_db: Kysely<unknown>): Promise<void> {},
  };
}
