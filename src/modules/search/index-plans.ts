// PostgreSQL's planner and the search documents. A GIN match is estimated well (the tsvector column's element
// statistics), but a sequential scan testing each row is costed as a cheap operator call, while each test first
// reads the row's TOASTed document (~5 KB at 1M): a capped count or a first-rows read of a word in 13% of
// documents chose to scan, `limit 10001` reached after ~80,000 rows, 280–650 ms, where the GIN bitmap took
// 45–190 ms. There is no per-statement hint, and an operator's cost is a catalog setting of the built-in function;
// a transaction-local `enable_seqscan = off` makes the scan the last resort for exactly the statements that match
// documents.
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import type { DB } from '../../core/db/schema.js';

type Executor = Kysely<DB> | Transaction<DB>;

/**
 * Runs `read` (statements that match search documents) with sequential scans disabled on PostgreSQL, in a
 * transaction of its own; inside the caller's, the setting is put back after. SQLite: as it is.
 */
export async function withIndexPlans<T>(
  db: Executor,
  dialect: DialectName,
  read: (db: Executor) => Promise<T>,
): Promise<T> {
  if (dialect !== 'postgres') return read(db);
  if (!db.isTransaction) {
    return db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      return read(trx);
    });
  }
  const { rows } = await sql<{ was: string }>`
    select current_setting('enable_seqscan') as was, set_config('enable_seqscan', 'off', true)`.execute(db);
  try {
    return await read(db);
  } finally {
    await sql`select set_config('enable_seqscan', ${rows[0]!.was}, true)`.execute(db);
  }
}

/** withIndexPlans for a read that matches documents (`matches`: it has a search or facet terms), else as it is. */
export const withIndexPlansIf = <T>(
  matches: boolean,
  db: Executor,
  dialect: DialectName,
  read: (db: Executor) => Promise<T>,
): Promise<T> => (matches ? withIndexPlans(db, dialect, read) : read(db));
