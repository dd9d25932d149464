import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/** Scoped, checkable API keys (spec/extensions.md §5). */
// eslint-disable-next-line @typescript-eslint/no-unused-vars
export function scopedKeys({ ts }: MigrationContext) {
  return {
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    async up(db: Kysely<unknown>): Promise<void> {},
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    async down(db: Kysely<unknown>): Promise<void> {},
  };
}
