import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/**
 * PostgreSQL: resource_search_vectors keeps each row's resource id in the row (storage plain), and its rows are
 * rewritten so that the existing ones do too.
 * Why: PostgreSQL toasts a row longer than ~2 KB (a document of a few hundred words: nearly every one at 1M) by
 * moving its attributes out of line, biggest first, until the row fits the table's toast_tuple_target of 128
 * bytes (0034). The document goes first; once 0035 put ~75 bytes of facet codes inline beside the name's words,
 * the row still did not fit, and the next attribute that may move was the id (36 characters, storage extended
 * by default): such rows' ids went to the TOAST table. Reading a match's id then cost a
 * probe of the TOAST index and a TOAST page, ~4 buffers a row, and every statement that hands on or joins the
 * ids of matches pays it per match: a search's count, which returns the ids it counted, read 45,000 buffers
 * for 10,001 matches at 1M (85–364 ms) against 5,600 for the count alone (14 ms); a search with filters joins
 * its matches' ids to `resources` (a word in 2% of the documents: 21,888 ids, 175,000 buffers, 430 ms).
 * After it the same count read 6,042 buffers (9–13 ms warm). Storage plain only stops the id from moving: a
 * row toasted before keeps its TOAST pointer until the row is copied, so each partition is rewritten by a
 * CLUSTER on its primary key (it runs in the migration's transaction, unlike VACUUM FULL; a copied row's values
 * are stored again under the current storage; the indexes are rebuilt): 3 min 26 s at 1M on two cores, the
 * heap 19 → 21 MB a partition. Rows written later keep the id inline as they come. SQLite is unchanged.
 */
export function vectorIdsInline({ dialect }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      // (Recurses to the partitions.)
      await sql`alter table resource_search_vectors alter column resource_id set storage plain`.execute(db);
      for (const { partition, primaryKey } of await partitionKeys(db)) {
        await sql`cluster ${sql.table(partition)} using ${sql.id(primaryKey)}`.execute(db);
        // Ordered once, not for good: a later bare CLUSTER of the database has nothing to redo here.
        await sql`alter table ${sql.table(partition)} set without cluster`.execute(db);
      }
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      // The rows keep their ids inline until rewritten; new ones may move them out again.
      await sql`alter table resource_search_vectors alter column resource_id set storage extended`.execute(
        db,
      );
    },
  };
}

/** The partitions of resource_search_vectors (in the current schema) and the name of each one's primary key. */
async function partitionKeys(db: Kysely<unknown>): Promise<Array<{ partition: string; primaryKey: string }>> {
  const { rows } = await sql<{ partition: string; primaryKey: string }>`
    select c.relname as partition, ic.relname as "primaryKey"
    from pg_inherits i
    join pg_class c on c.oid = i.inhrelid
    join pg_index x on x.indrelid = c.oid and x.indisprimary
    join pg_class ic on ic.oid = x.indexrelid
    where i.inhparent = 'resource_search_vectors'::regclass
    order by c.relname`.execute(db);
  return rows;
}
