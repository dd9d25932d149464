import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';
import { analyzeNewIndex } from './statistics.js';

// modules/search/resource-match.ts `popularity` without the table name, as 0028 indexed it.
const POPULARITY = sql`(1 + least(ln((1 + downloads)::float8) + 2 * ln((1 + like_count)::float8), 30) / 16::float8)`;

/**
 * PostgreSQL: the popularity index (0028) carries the columns its expression reads, so a walk of it is an
 * index-only scan. PostgreSQL reads an expression index alone only when every column the query names is in it,
 * the expression's own columns included; without them each walked row was fetched from the heap. The walk that
 * needs it: a relevance top tier whose count listed its ids, tested against them row by row (MatchPlan 'hashed',
 * search/resource-match.ts matchCondition), 6,000 rows for a page of a tier of 2,153 at 1M: 308 ms cold as index
 * scans, 4–6 ms index only, against 20–34 ms for gathering the tier (a probe per match). SQLite walks its
 * expression indexes alone already. Cost: the index entries are 16 bytes longer; they move on the same writes.
 */
export function popularityIndexOnly({ dialect }: MigrationContext) {
  const rebuild = async (db: Kysely<unknown>, include: boolean) => {
    await sql`drop index resources_status_popularity_idx`.execute(db);
    await sql`create index resources_status_popularity_idx on resources (status, ${POPULARITY}, id)
      ${include ? sql`include (downloads, like_count)` : sql``}`.execute(db);
    // The expression's statistics went with the dropped index.
    await analyzeNewIndex(db, dialect, 'resources', 'resources_status_popularity_idx');
  };
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'postgres') await rebuild(db, true);
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'postgres') await rebuild(db, false);
    },
  };
}
