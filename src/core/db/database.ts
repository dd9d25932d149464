// Opens the database the configuration names: embedded SQLite by default, PostgreSQL for a postgres:// URL.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Config } from '../../config.js';
import type { DB } from './schema.js';
import { createHash } from 'node:crypto';
import { registerHotReads } from './prepared.js';
import { PG_CONNECT_TIMEOUT_MS, surviveConnectionLoss } from './pg-connection-loss.js';
import { openSqlite, sqliteDialect } from './sqlite.js';
import { openReadConnection } from './sqlite-reads.js';
import type { ReadConnection } from './sqlite-reads.js';

export type DialectName = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  dialect: DialectName;
  /** SQLite on a file: the connection hot reads use (sqlite.ts). Absent on PostgreSQL and `:memory:`. */
  reader?: ReadConnection;
  destroy(): Promise<void>;
}

const TIMESTAMPTZ_OID = 1184;
const TIMESTAMP_OID = 1114;
const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** PostgreSQL returns Date objects and int8 strings; the app wants ISO strings and numbers, as from SQLite. */
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === TIMESTAMPTZ_OID || oid === TIMESTAMP_OID) {
      return (value: string) => new Date(value).toISOString();
    }
    if (oid === INT8_OID || oid === NUMERIC_OID) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

/**
 * Hot reads as named statements: each pool connection parses and plans one the first time it runs it and then only
 * binds values. The name is derived from the SQL, so one text always has one name.
 */
function namedStatements(pool: pg.Pool) {
  const names = new Map<string, string>();
  return async <Row>(sql: string, parameters: readonly unknown[]): Promise<Row[]> => {
    let name = names.get(sql);
    if (name === undefined) {
      name = `hot_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
      names.set(sql, name);
    }
    const result = await pool.query({ name, text: sql, values: parameters as unknown[] });
    return result.rows as Row[];
  };
}

export function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'sqliteSynchronous'>,
): Database {
  const url = config.databaseUrl;
  if (url !== undefined && /^postgres(ql)?:\/\//.test(url)) {
    const pool = surviveConnectionLoss(
      new pg.Pool({
        connectionString: url,
        max: 10,
        types: pgTypes,
        connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS,
      }),
    );
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    registerHotReads(db, namedStatements(pool));
    return { db, dialect: 'postgres', destroy: () => db.destroy() };
  }
  let filename: string;
  if (url === ':memory:') filename = ':memory:';
  else if (url?.startsWith('sqlite:')) filename = url.slice('sqlite:'.length);
  else {
    mkdirSync(config.dataDir, { recursive: true });
    filename = join(config.dataDir, 'marketplace.db');
  }
  const writer = openSqlite({ filename, synchronous: config.sqliteSynchronous });
  // An in-memory database exists only inside its one connection: there, hot reads go through Kysely too.
  if (filename === ':memory:') {
    const db = new Kysely<DB>({ dialect: sqliteDialect(writer) });
    return { db, dialect: 'sqlite', destroy: () => db.destroy() };
  }
  const reader = openReadConnection(filename);
  const db = new Kysely<DB>({ dialect: sqliteDialect(writer, reader.committed) });
  registerHotReads(db, (sql, parameters) => reader.all(sql, parameters));
  return {
    db,
    dialect: 'sqlite',
    reader,
    destroy: async () => {
      reader.close();
      await db.destroy();
    },
  };
}
