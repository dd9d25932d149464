// A second SQLite connection for hot reads, used synchronously outside Kysely's single-connection queue, and the
// change counter that tells kept answers (core/http/object-cache.ts) whether the database may have changed.
//
// Kysely serializes every query on the one SQLite connection behind a mutex and a few promise hops, which
// measured ~8 µs per query under load against ~2 µs for the statement itself. A separate connection also keeps
// hot reads out of the write connection's open transactions: in WAL mode it sees exactly what has been
// committed, never another request's half-done transaction.
import Database from 'better-sqlite3';
import { toSqliteParams } from './sqlite.js';

/**
 * How stale a change committed by another process (the CLI, a second instance on the same file) may be seen by
 * `changes()`. Reading SQLite's data version costs a read transaction (two fcntl locks and an fstat, ~2.3 µs
 * measured, several times that under load), too much to pay on every request for what is rare on SQLite.
 */
export const OUTSIDE_CHANGES_MS = 1;

export interface ReadConnection {
  /** The rows of a read-only statement, prepared once per SQL text and reused. */
  all<Row>(sql: string, parameters: readonly unknown[]): Row[];
  /**
   * A number that moves whenever the database may have changed: at once after a commit of this process's write
   * connection (`committed`), within OUTSIDE_CHANGES_MS after another process's (`PRAGMA data_version`).
   */
  changes(): number;
  /** Called by the write connection after every statement that made a change visible. */
  committed(): void;
  close(): void;
}

export function openReadConnection(filename: string, now: () => number = Date.now): ReadConnection {
  const db = new Database(filename);
  db.pragma('busy_timeout = 5000');
  // Belt and braces: a write through this connection would bypass the writer's transactions.
  db.pragma('query_only = ON');
  const statements = new Map<string, Database.Statement>();
  // As seen from this connection, which never writes, it moves whenever any other connection commits.
  const dataVersion = db.prepare('pragma data_version').pluck();
  let generation = 0;
  let seenVersion = dataVersion.get();
  let polledAt = now();

  return {
    all<Row>(sql: string, parameters: readonly unknown[]): Row[] {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = db.prepare(sql);
        if (!statement.readonly) throw new Error(`Not a read-only statement: ${sql}`);
        statements.set(sql, statement);
      }
      return statement.all(...toSqliteParams(parameters)) as Row[];
    },

    changes(): number {
      const at = now();
      if (at - polledAt >= OUTSIDE_CHANGES_MS) {
        polledAt = at;
        const version = dataVersion.get();
        if (version !== seenVersion) {
          seenVersion = version;
          generation += 1;
        }
      }
      return generation;
    },

    committed(): void {
      generation += 1;
    },

    close: () => db.close(),
  };
}
