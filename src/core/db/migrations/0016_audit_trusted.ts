import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/** The audit log and trusted creators (spec/extensions.md §4). */
// eslint-disable-next-line @typescript-eslint/no-unused-vars
export function auditTrusted({ ts }: MigrationContext) {
  return {
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    async up(db: Kysely<unknown>): Promise<void> {},
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    async down(db: Kysely<unknown>): Promise<void> {},
  };
}
