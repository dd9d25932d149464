// node-postgres emits 'error' on the pool (for an idle client) and on a checked-out client (between the queries
// of a transaction) when the server ends the connection: pg_terminate_backend, a restart, a failover, a dropped
// database. An 'error' event nobody listens to ends the Node process, so one PostgreSQL hiccup took the whole
// service down. The broken client is already discarded by the pool and the next query opens a new connection;
// the query that was running on it rejects on its own and is answered 503 (core/db/unavailable.ts), and /ready
// reports the outage. So these events only need a listener that keeps the process alive.
import type pg from 'pg';

/** How long a request waits for a new connection before it is answered 503 (a blackholed server never refuses). */
export const PG_CONNECT_TIMEOUT_MS = 5000;

export function surviveConnectionLoss(pool: pg.Pool, onLoss: (error: Error) => void = () => {}): pg.Pool {
  pool.on('error', onLoss);
  pool.on('connect', (client) => client.on('error', onLoss));
  return pool;
}
