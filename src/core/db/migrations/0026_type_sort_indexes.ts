import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/** The list sorts other than date, each with the resources column it orders by (0004 indexed created_at). */
const SORTS: Array<[string, string]> = [
  ['updated', 'updated_at'],
  ['downloads', 'downloads'],
  ['likes', 'like_count'],
  ['name', 'name_key'],
];

/**
 * `GET /resources?type=X&sortBy=…` for every sort (issue 17): only (type, status, created_at) was indexed, so on
 * SQLite a type sorted by downloads, likes, update or name walked the status index and skipped the other types'
 * rows (page 24 of a rare type read tens of thousands at 1M: p99 458 ms). Each of these answers a page of one
 * type in any sort by reading that page. Cost: four index entries per resource, and an update of downloads or
 * like_count now moves two entries instead of one.
 */
export function typeSortIndexes(_context: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const [name, column] of SORTS) {
        await db.schema
          .createIndex(`resources_type_status_${name}_idx`)
          .on('resources')
          .columns(['type', 'status', column, 'id'])
          .execute();
      }
    },
    async down(db: Kysely<unknown>): Promise<void> {
      for (const [name] of SORTS) await db.schema.dropIndex(`resources_type_status_${name}_idx`).execute();
    },
  };
}
