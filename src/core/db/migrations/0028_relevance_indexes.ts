import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';
import { analyzeNewIndex } from './statistics.js';

/**
 * Relevance at scale (issue 17). `sortBy=relevance` orders the matches with every search word in the name (the
 * top text score) by popularity alone, so when they fill a page the page is the first rows of a popularity index
 * that match, instead of every name match scored and sorted (a word in 20% of names at 1M: 180k rows, p99 1.3 s
 * on SQLite, 11.7 s on PostgreSQL). The expression is modules/search/resource-match.ts `popularity` written
 * without the table name (index expressions may not name it); both dialects use an expression index only for
 * the identical expression, which test/search/popularity-index.test.ts checks through the plan. Cost: one more
 * entry moved per counted download or like, as the downloads and likes sort indexes already do.
 * PostgreSQL also gets the names' words under their own GIN index, to find the documents with a search's words in
 * the name without reading each match's document.
 */
export function relevanceIndexes({ dialect }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const popularity =
        dialect === 'postgres'
          ? sql`(1 + least(ln((1 + downloads)::float8) + 2 * ln((1 + like_count)::float8), 30) / 16::float8)`
          : sql`(1 + min(ln(1 + downloads) + 2 * ln(1 + like_count), 30) / 16.0)`;
      await sql`create index resources_status_popularity_idx on resources (status, ${popularity}, id)`.execute(
        db,
      );
      if (dialect === 'postgres') {
        // The names' words on their own (search/resource-match.ts matchingResourceIds): which documents have
        // any or every word of a search in the name, without reading each match's whole document.
        await sql`create index resource_search_name_idx on resource_search
          using gin (to_tsvector('simple', name_text))`.execute(db);
      }
      // Statistics for the new index where the database has any (statistics.ts).
      await analyzeNewIndex(db, dialect, 'resources', 'resources_status_popularity_idx');
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'postgres') await db.schema.dropIndex('resource_search_name_idx').execute();
      await db.schema.dropIndex('resources_status_popularity_idx').execute();
    },
  };
}
