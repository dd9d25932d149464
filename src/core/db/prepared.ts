// Hot reads skip Kysely's per-call query building: the query is built and compiled once per dialect with
// placeholder arguments, and later calls only swap the parameter values. Outside a transaction they also skip
// Kysely's execution path: on SQLite files they run synchronously on the read connection (sqlite-reads.ts); on
// PostgreSQL as named statements on the pool, which each connection parses and plans once. Inside a transaction
// they go through it, since they must see its own uncommitted writes.
import { CompiledQuery, PostgresAdapter } from 'kysely';
import type { Compilable, Kysely, Transaction } from 'kysely';
import type { DialectName } from './database.js';
import type { DB } from './schema.js';

/** Runs a compiled read outside Kysely: the SQLite read connection, or named statements on the pg pool. */
export type HotReads = <Row>(sql: string, parameters: readonly unknown[]) => Row[] | Promise<Row[]>;

/** The hot-read runner of each open database (database.ts registers it). A transaction never finds one. */
const hotReads = new WeakMap<Kysely<DB>, HotReads>();

export function registerHotReads(db: Kysely<DB>, reads: HotReads): void {
  hotReads.set(db, reads);
}

/**
 * The dialect of a database or transaction, for code that is handed only `db` (the access checks): its adapter
 * says it, and a transaction shares its database's adapter.
 */
export function dialectOf(db: Kysely<DB> | Transaction<DB>): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** A value that stands for argument i while the query is compiled. */
const placeholder = (index: number): string => `\u0000prepared-arg-${index}\u0000`;

interface Template {
  sql: string;
  /** For each compiled parameter: the argument index it takes, or a constant. */
  slots: Array<{ arg: number } | { value: unknown }>;
}

function compileTemplate(query: Compilable<unknown>, argCount: number): Template {
  const { sql, parameters } = query.compile();
  const slots = parameters.map((value) => {
    for (let i = 0; i < argCount; i++) if (value === placeholder(i)) return { arg: i };
    return { value };
  });
  const used = new Set(slots.flatMap((slot) => ('arg' in slot ? [slot.arg] : [])));
  if (used.size !== argCount)
    throw new Error('prepared(): every argument must be used as a plain query value');
  return { sql, slots };
}

/**
 * Declares a query whose shape never changes, only its values. `build` receives placeholder strings; each must be
 * passed to the query as a plain value (no transformation: lower-case or parse before calling).
 */
export function prepared<Row, Args extends unknown[]>(
  argCount: Args['length'],
  build: (db: Kysely<DB>, dialect: DialectName, ...args: string[]) => Compilable<Row>,
) {
  const templates = new Map<DialectName, Template>();
  return async (db: Kysely<DB>, dialect: DialectName, ...args: Args): Promise<Row[]> => {
    let template = templates.get(dialect);
    if (template === undefined) {
      const placeholders = Array.from({ length: argCount }, (_, i) => placeholder(i));
      template = compileTemplate(build(db, dialect, ...placeholders), argCount);
      templates.set(dialect, template);
    }
    const parameters = template.slots.map((slot) => ('arg' in slot ? args[slot.arg] : slot.value));
    // A transaction object is a different Kysely instance, so it never finds the runner.
    const reads = hotReads.get(db);
    if (reads !== undefined) return reads<Row>(template.sql, parameters);
    const result = await db.executeQuery<Row>(CompiledQuery.raw(template.sql, parameters));
    return result.rows;
  };
}
