// Named row counts kept in step with their tables (the `counters` table), so list totals never count a whole
// table per request (DESIGN §5, §10). Move a counter in the transaction of the change it counts.
import type { Kysely, Transaction } from 'kysely';
import type { DialectName } from './database.js';
import { prepared } from './prepared.js';
import type { DB } from './schema.js';

type Executor = Kysely<DB> | Transaction<DB>;

const counterValue = prepared<{ value: number }, [string]>(1, (db, _dialect, name) =>
  db.selectFrom('counters').select('value').where('name', '=', name!),
);

/** A counter's value (0 when the row does not exist). Prepared: list totals read it on every request. */
export async function readCounter(db: Kysely<DB>, dialect: DialectName, name: string): Promise<number> {
  const rows = await counterValue(db, dialect, name);
  return Number(rows[0]?.value ?? 0);
}

/** The sum of several counters (e.g. every status). */
export async function readCounterSum(db: Executor, names: readonly string[]): Promise<number> {
  const row = await db
    .selectFrom('counters')
    .select((eb) => eb.fn.sum<number>('value').as('total'))
    .where('name', 'in', names)
    .executeTakeFirst();
  return Number(row?.total ?? 0);
}

/**
 * Moves several counters in one transaction, always in the order of their names: a counter's row stays locked
 * until the transaction ends, so two transactions that moved the same counters in opposite orders (suspending one
 * resource while unsuspending another: APPROVED then SUSPENDED against SUSPENDED then APPROVED) would each wait
 * for the other, and PostgreSQL would abort one of them as a deadlock.
 */
export async function moveCounters(
  db: Executor,
  moves: ReadonlyArray<readonly [string, number]>,
): Promise<void> {
  const byName = new Map<string, number>();
  for (const [name, delta] of moves) byName.set(name, (byName.get(name) ?? 0) + delta);
  const ordered = [...byName]
    .filter(([, delta]) => delta !== 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [name, delta] of ordered) await moveCounter(db, name, delta);
}

export async function moveCounter(db: Executor, name: string, delta: number): Promise<void> {
  await db
    .updateTable('counters')
    .set((eb) => ({ value: eb('value', '+', delta) }))
    .where('name', '=', name)
    .execute();
}
