import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/** The transparent rank score and its inputs (spec/extensions.md §3). */
// eslint-disable-next-line @typescript-eslint/no-unused-vars
export function serverRank({ ts }: MigrationContext) {
  return {
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    async up(db: Kysely<unknown>): Promise<void> {},
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    async down(db: Kysely<unknown>): Promise<void> {},
  };
}
