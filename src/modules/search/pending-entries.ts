// PostgreSQL: the pending entries of the search indexes, merged in the background. A GIN index takes new
// entries into a pending list (fastupdate, on by default) and merges them into its tree in bulk once the list
// passes gin_pending_list_limit (4 MB), or when VACUUM runs. Every search through the index reads its whole
// pending list first, so between merges each search pays for every document written since the last one: at 1M
// resources, 2,000 documents written since (3 MB pending in each partition's document index) took a search's
// p50 from 18.4 to 23.5 ms and relevance's p99 from 91 to 507 ms. Autovacuum would merge them only after a
// fifth of a partition's rows changed, and the write that fills a list merges it inside its own request (a
// ~270-document merge, hundreds of milliseconds). Turning fastupdate off moves each document's insertion into
// its request instead (8 ms per document at 1M against 1.85 ms into the list), so the lists stay, and a job
// merges them every few seconds, off the request path (docs/decisions.md).
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../../core/db/schema.js';

/** How often the pending entries are merged: searches pay at most this long's writes. */
export const PENDING_MERGE_INTERVAL_MS = 10_000;
export const PENDING_MERGE_JOB = 'merge-search-pending-entries';

/**
 * Merges the pending entries of every GIN index of the current schema that this role may merge (its owner's;
 * partitioned parents hold no entries of their own, their partitions' indexes do). Returns the pending pages
 * merged. A standby merges nothing (the function cannot run during recovery).
 */
export async function mergePendingEntries(db: Kysely<DB>): Promise<number> {
  const { rows } = await sql<{ pages: string | number }>`
    select coalesce(sum(gin_clean_pending_list(c.oid::regclass)), 0) as pages
    from pg_class c
    join pg_am am on am.oid = c.relam and am.amname = 'gin'
    where c.relkind = 'i'
      and c.relnamespace = current_schema()::regnamespace
      and pg_has_role(c.relowner, 'USAGE')
      and not pg_is_in_recovery()`.execute(db);
  return Number(rows[0]?.pages ?? 0);
}
