// PostgreSQL: a second pool whose connections start with sequential scans and JIT off, for the statements that
// match search documents (modules/search/index-plans.ts says why they need those settings). Setting them per
// statement instead costs a transaction of its own around each one: BEGIN, set_config, the statement, COMMIT,
// four round trips where one does, and a relevance page runs six to eight such statements one after another.
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type pg from 'pg';
import type { DB } from './schema.js';

/** The server options every connection of the index-plan pool starts with. */
export const INDEX_PLAN_SETTINGS = '-c enable_seqscan=off -c jit=off';

/**
 * Its size: the statements it serves are CPU-bound on the database server, so more connections than half the
 * main pool only queue there; at least two, so one slow count never holds up another request's page.
 */
export const indexPlanPoolSize = (mainPoolSize: number): number => Math.max(2, Math.ceil(mainPoolSize / 2));

interface IndexPlanDatabase {
  db: Kysely<DB>;
  /** Whether its connections did start with the settings, asked once (a pooler may drop startup options). */
  honoured?: Promise<boolean>;
}

/** The index-plan database of each open PostgreSQL database (database.ts registers it). */
const indexPlanDatabases = new WeakMap<Kysely<DB>, IndexPlanDatabase>();

export function registerIndexPlanDatabase(db: Kysely<DB>, planned: Kysely<DB>): void {
  indexPlanDatabases.set(db, { db: planned });
}

const startedWithSettings = async (planned: Kysely<DB>): Promise<boolean> => {
  const { rows } = await sql<{ seqscan: string; jit: string }>`
    select current_setting('enable_seqscan') as seqscan, current_setting('jit') as jit`.execute(planned);
  return rows[0]?.seqscan === 'off' && rows[0].jit === 'off';
};

/**
 * The database whose connections plan with indexes only, for `db`: none inside a transaction (its reads must
 * see its own writes), on SQLite, or when the server's connections did not start with the settings (PgBouncer
 * with `ignore_startup_parameters = options` drops them without a word): the caller then sets them per
 * transaction. Asked once per process; a failed question (the server unreachable) is asked again next time.
 */
export async function indexPlanDatabase(db: Kysely<DB> | Transaction<DB>): Promise<Kysely<DB> | undefined> {
  if (db.isTransaction) return undefined;
  const entry = indexPlanDatabases.get(db);
  if (entry === undefined) return undefined;
  entry.honoured ??= startedWithSettings(entry.db).catch((error: unknown) => {
    entry.honoured = undefined;
    throw error;
  });
  return (await entry.honoured) ? entry.db : undefined;
}

/** Both pools' counts as one, for the pool gauges of /metrics: the connections this process holds. */
export function combinedPoolCounts(pools: ReadonlyArray<pg.Pool | undefined>) {
  const open = pools.filter((pool) => pool !== undefined);
  const sum = (read: (pool: pg.Pool) => number) => open.reduce((total, pool) => total + read(pool), 0);
  return {
    get totalCount() {
      return sum((pool) => pool.totalCount);
    },
    get idleCount() {
      return sum((pool) => pool.idleCount);
    },
    get waitingCount() {
      return sum((pool) => pool.waitingCount);
    },
  };
}
