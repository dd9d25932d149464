import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/** Indexes and counters for queue positions and moderation statistics (spec/extensions.md §4). */
// eslint-disable-next-line @typescript-eslint/no-unused-vars
export function moderationQueue({ ts }: MigrationContext) {
  return {
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    async up(db: Kysely<unknown>): Promise<void> {},
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    async down(db: Kysely<unknown>): Promise<void> {},
  };
}
