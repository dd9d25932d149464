// Opens the database the configuration names: embedded SQLite by default, PostgreSQL for a postgres:// URL.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Kysely } from 'kysely';
import type { LogEvent } from 'kysely';
import pg from 'pg';
import { parseIntoClientConfig } from 'pg-connection-string';
import { DEFAULT_WORK_MEM_MB } from '../../config-database.js';
import type { Config } from '../../config.js';
import type { DB } from './schema.js';
import { createHash } from 'node:crypto';
import { registerChangeSignal } from './change-cache.js';
import { registerHotReads } from './prepared.js';
import { INDEX_PLAN_SETTINGS, indexPlanPoolSize, registerIndexPlanDatabase } from './index-plan-pool.js';
import { PG_CONNECT_TIMEOUT_MS, surviveConnectionLoss } from './pg-connection-loss.js';
import { CurrentSchemaPostgresDialect } from './pg-introspector.js';
import type { HotReads } from './prepared.js';
import { openSqlite, sqliteDialect } from './sqlite.js';
import { openReadConnection } from './sqlite-reads.js';
import type { ReadConnection } from './sqlite-reads.js';
import { pgChangeSignal } from './pg-change-signal.js';
import type { ChangeSignal } from './change-cache.js';

export type DialectName = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  dialect: DialectName;
  /** SQLite on a file: the connection hot reads use (sqlite.ts). Absent on PostgreSQL and `:memory:`. */
  reader?: ReadConnection;
  /** PostgreSQL: the connection pool of writes and plain reads. */
  pool?: pg.Pool;
  /** PostgreSQL: the pool of the statements that match search documents (index-plan-pool.ts). */
  indexPlanPool?: pg.Pool;
  /**
   * A number that moves whenever the database may have changed, for answers kept until it does
   * (core/db/change-cache.ts): SQLite on a file, the read connection's counter (sqlite-reads.ts); PostgreSQL, a
   * fence that sees every commit made before the call, by any process (pg-change-signal.ts). Absent on
   * `:memory:`, where nothing is kept.
   */
  changes?: ChangeSignal;
  destroy(): Promise<void>;
}

/** Receives each statement's kind (select, insert, update, delete, other) and duration in seconds. */
export type QueryObserver = (operation: string, seconds: number) => void;

export interface OpenDatabaseOptions {
  /** Times every statement, Kysely's and the hot reads' (metrics); nothing is timed without it. */
  observeQuery?: QueryObserver;
}

const OPERATION_BY_NODE: Record<string, string> = {
  SelectQueryNode: 'select',
  InsertQueryNode: 'insert',
  UpdateQueryNode: 'update',
  DeleteQueryNode: 'delete',
};

/** Kysely's `log` option: it measures each query's duration itself and hands it over here. */
function kyselyLog(observe: QueryObserver | undefined) {
  if (observe === undefined) return undefined;
  return (event: LogEvent) =>
    observe(OPERATION_BY_NODE[event.query.query.kind] ?? 'other', event.queryDurationMillis / 1000);
}

/** Hot reads bypass Kysely (prepared.ts), so they are timed here: every one of them is a select. */
function timedHotReads(reads: HotReads, observe: QueryObserver | undefined): HotReads {
  if (observe === undefined) return reads;
  return <Row>(sql: string, parameters: readonly unknown[]) => {
    const started = performance.now();
    const done = () => observe('select', (performance.now() - started) / 1000);
    const rows = reads<Row>(sql, parameters);
    if (Array.isArray(rows)) done();
    else void rows.then(done, done);
    return rows;
  };
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

/**
 * The pool's connection settings: the URL's, with `-c work_mem=…` added to the server options the connection
 * starts with (the URL's own `options`, else PGOPTIONS, are kept: pg would let either replace ours). A `SET` on
 * each new connection relied on pg queueing it ahead of the first query, which pg 8.23 deprecates.
 */
function connectionConfig(url: string, workMemMb: number, settings = ''): pg.ClientConfig {
  const config = parseIntoClientConfig(url);
  const own = config.options ?? process.env['PGOPTIONS'];
  return { ...config, options: [own, `-c work_mem=${workMemMb}MB`, settings].filter(Boolean).join(' ') };
}

/** One pool of the process: DATABASE_WORK_MEM_MB and `settings` on each connection, surviving lost ones. */
function openPool(
  url: string,
  config: Partial<Pick<Config, 'databaseWorkMemMb'>>,
  max: number,
  settings?: string,
): pg.Pool {
  return surviveConnectionLoss(
    new pg.Pool({
      ...connectionConfig(url, config.databaseWorkMemMb ?? DEFAULT_WORK_MEM_MB, settings),
      max,
      types: pgTypes,
      connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS,
    }),
  );
}

export function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'sqliteSynchronous'> &
    Partial<Pick<Config, 'databasePoolSize' | 'databaseWorkMemMb'>>,
  options: OpenDatabaseOptions = {},
): Database {
  const log = kyselyLog(options.observeQuery);
  const url = config.databaseUrl;
  if (url !== undefined && /^postgres(ql)?:\/\//.test(url)) {
    // DATABASE_POOL_SIZE (config.ts: its default follows the CPU count); 10 where no config is at hand.
    const size = config.databasePoolSize ?? 10;
    const pool = openPool(url, config, size);
    const db = new Kysely<DB>({ dialect: new CurrentSchemaPostgresDialect({ pool }), log });
    const indexPlanPool = openPool(url, config, indexPlanPoolSize(size), INDEX_PLAN_SETTINGS);
    const indexPlanDb = new Kysely<DB>({
      dialect: new CurrentSchemaPostgresDialect({ pool: indexPlanPool }),
      log,
    });
    registerIndexPlanDatabase(db, indexPlanDb);
    registerHotReads(db, timedHotReads(namedStatements(pool), options.observeQuery));
    const observe = options.observeQuery;
    const changes = pgChangeSignal(pool, observe && ((seconds) => observe('select', seconds)));
    registerChangeSignal(db, changes);
    return {
      db,
      dialect: 'postgres',
      pool,
      indexPlanPool,
      changes,
      destroy: async () => {
        await Promise.all([indexPlanDb.destroy(), db.destroy()]);
      },
    };
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
    const db = new Kysely<DB>({ dialect: sqliteDialect(writer), log });
    return { db, dialect: 'sqlite', destroy: () => db.destroy() };
  }
  const reader = openReadConnection(filename);
  const db = new Kysely<DB>({ dialect: sqliteDialect(writer, reader.committed), log });
  registerHotReads(
    db,
    timedHotReads((sql, parameters) => reader.all(sql, parameters), options.observeQuery),
  );
  registerChangeSignal(db, reader.changes);
  return {
    db,
    dialect: 'sqlite',
    reader,
    changes: reader.changes,
    destroy: async () => {
      reader.close();
      await db.destroy();
    },
  };
}
