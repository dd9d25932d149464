// The few SQL differences between SQLite and PostgreSQL, in one place.
import { sql } from 'kysely';
import type { Expression, RawBuilder, SqlBool, Transaction } from 'kysely';
import { jsonArrayFrom as pgJsonArrayFrom } from 'kysely/helpers/postgres';
import { jsonArrayFrom as sqliteJsonArrayFrom } from 'kysely/helpers/sqlite';
import type { DialectName } from './database.js';
import type { DB } from './schema.js';

/** Escapes LIKE wildcards so user input matches literally (used with ESCAPE '\'). */
export function escapeLike(input: string): string {
  return input.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** Case-insensitive "contains" on a column: ILIKE on PostgreSQL, LIKE (ASCII case-folding) on SQLite. */
export function containsInsensitive(
  dialect: DialectName,
  column: Expression<unknown> | RawBuilder<unknown>,
  needle: string,
): RawBuilder<SqlBool> {
  const pattern = `%${escapeLike(needle)}%`;
  return dialect === 'postgres'
    ? sql<SqlBool>`${column} ILIKE ${pattern} ESCAPE '\\'`
    : sql<SqlBool>`${column} LIKE ${pattern} ESCAPE '\\'`;
}

/** Column type used for timestamps: timestamptz on PostgreSQL, ISO text on SQLite. */
export function timestampType(dialect: DialectName): 'timestamptz' | 'text' {
  return dialect === 'postgres' ? 'timestamptz' : 'text';
}

/** True when an error is a unique-constraint violation on either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * Aggregates a subquery into a JSON array column, so a row and its small children come back in one query.
 * Read the column with parseJsonArray. Timestamps inside come back in the database's JSON format:
 * normalize them with toIsoTimestamp.
 */
export function jsonArrayFrom<O>(
  dialect: DialectName,
  expr: Parameters<typeof sqliteJsonArrayFrom<O>>[0],
): RawBuilder<O[]> {
  const aggregated = dialect === 'postgres' ? pgJsonArrayFrom(expr) : sqliteJsonArrayFrom(expr);
  // The rows are read back through parseJsonArray: type them as the subquery's rows.
  return aggregated as unknown as RawBuilder<O[]>;
}

/** SQLite returns aggregated JSON as text, PostgreSQL as parsed values. */
export function parseJsonArray<T>(value: unknown): T[] {
  if (typeof value === 'string') return JSON.parse(value) as T[];
  return (value ?? []) as T[];
}

export const toIsoTimestamp = (value: string): string => new Date(value).toISOString();

/**
 * Serializes transactions that check-then-write on the same key (e.g. "at most 10 links per owner").
 * PostgreSQL: a transaction-scoped advisory lock on the key. SQLite: nothing to do, write transactions
 * already run one at a time (BEGIN IMMEDIATE).
 */
export async function lockForUpdate(trx: Transaction<DB>, dialect: DialectName, key: string): Promise<void> {
  if (dialect === 'postgres')
    await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
}
