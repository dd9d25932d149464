// PostgreSQL's planner and the search documents. A GIN match is estimated well (the tsvector column's element
// statistics), but a sequential scan testing each row is costed as a cheap operator call, while each test first
// reads the row's TOASTed document (~5 KB at 1M): a capped count or a first-rows read of a word in 13% of
// documents chose to scan, `limit 10001` reached after ~80,000 rows, 280–650 ms, where the GIN bitmap took
// 45–190 ms. There is no per-statement hint, and an operator's cost is a catalog setting of the built-in function;
// `enable_seqscan = off` (on connections that start with it, or set for the read) makes the scan the last resort
// for exactly the statements that match documents.
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import { indexPlanDatabase } from '../../core/db/index-plan-pool.js';
import type { DB } from '../../core/db/schema.js';

type Executor = Kysely<DB> | Transaction<DB>;

/**
 * Runs `read` (statements that match search documents) with sequential scans and JIT off on PostgreSQL: on the
 * connections of the pool that starts them so (core/db/index-plan-pool.ts), one round trip a statement; else
 * (inside the caller's transaction, or where the server dropped the pool's settings) set for the read alone. JIT
 * goes off with them: a disabled plan node is costed 10¹⁰ more, past every JIT threshold, and any statement
 * left with one (a scan nothing else can do) would be compiled (224–324 ms of LLVM for ~40 ms of work,
 * measured at 1M). SQLite: as it is.
 */
export async function withIndexPlans<T>(
  db: Executor,
  dialect: DialectName,
  read: (db: Executor) => Promise<T>,
): Promise<T> {
  if (dialect !== 'postgres') return read(db);
  const planned = await indexPlanDatabase(db);
  if (planned !== undefined) return read(planned);
  if (!db.isTransaction) {
    return db.transaction().execute(async (trx) => {
      await sql`select set_config('enable_seqscan', 'off', true), set_config('jit', 'off', true)`.execute(
        trx,
      );
      return read(trx);
    });
  }
  const { rows } = await sql<{ seqscan: string; jit: string }>`
    select current_setting('enable_seqscan') as seqscan, current_setting('jit') as jit,
      set_config('enable_seqscan', 'off', true), set_config('jit', 'off', true)`.execute(db);
  try {
    return await read(db);
  } finally {
    const was = rows[0]!;
    await sql`select set_config('enable_seqscan', ${was.seqscan}, true), set_config('jit', ${was.jit}, true)`.execute(
      db,
    );
  }
}

/** withIndexPlans for a read that matches documents (`matches`: it has a search or facet terms), else as it is. */
export const withIndexPlansIf = <T>(
  matches: boolean,
  db: Executor,
  dialect: DialectName,
  read: (db: Executor) => Promise<T>,
): Promise<T> => (matches ? withIndexPlans(db, dialect, read) : read(db));
