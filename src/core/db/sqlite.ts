// better-sqlite3 behind Kysely, with the two things the stock driver lacks:
// reused prepared statements (the stock driver prepares every query: 15.6k vs 37.8k req/s measured, DESIGN §5)
// and BEGIN IMMEDIATE, so a write transaction never fails half-way on a lock upgrade.
import Database from 'better-sqlite3';
import { SqliteDialect } from 'kysely';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

const STATEMENT_CACHE_SIZE = 500;

type Param = unknown;

/** better-sqlite3 binds neither booleans nor Dates; the API layer uses both. */
function toSqliteParam(value: Param): Param {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  return value;
}

function toSqliteParams(parameters: readonly Param[]): Param[] {
  return parameters.map(toSqliteParam);
}

export interface SqliteOptions {
  filename: string;
  synchronous: 'FULL' | 'NORMAL';
}

export function openSqlite(options: SqliteOptions): Database.Database {
  const db = new Database(options.filename);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.synchronous}`);
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  return db;
}

function wrap(stmt: Database.Statement): SqliteStatement {
  return {
    reader: stmt.reader,
    all: (parameters) => stmt.all(...toSqliteParams(parameters)),
    run: (parameters) => stmt.run(...toSqliteParams(parameters)),
    iterate: (parameters) => stmt.iterate(...toSqliteParams(parameters)),
  };
}

/** Wraps a connection so Kysely's driver gets cached statements and IMMEDIATE transactions. */
export function cachingDatabase(db: Database.Database): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => db.close(),
    prepare(sql: string): SqliteStatement {
      let statement = cache.get(sql);
      if (statement === undefined) {
        statement = wrap(db.prepare(sql === 'begin' ? 'begin immediate' : sql));
        // The set of query shapes is bounded by the code, so this rarely fills; when it does, drop the oldest.
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}

export function sqliteDialect(options: SqliteOptions): SqliteDialect {
  return new SqliteDialect({ database: () => Promise.resolve(cachingDatabase(openSqlite(options))) });
}
