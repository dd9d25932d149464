// The database settings of config.ts (the only reader of process.env): where the data lives and how this
// process's PostgreSQL connections are sized.
import { availableParallelism } from 'node:os';
import { ConfigError, integer, oneOf, text } from './config-env.js';
import type { Env } from './config-env.js';

export interface DatabaseConfig {
  /** undefined → embedded SQLite at DATA_DIR/marketplace.db; ':memory:' is accepted for tests. */
  databaseUrl: string | undefined;
  sqliteSynchronous: 'FULL' | 'NORMAL';
  /** PostgreSQL: connections in this process's pool (DATABASE_POOL_SIZE; default from the CPU count). */
  databasePoolSize: number;
  /** PostgreSQL: work_mem of this process's connections, in MB (DATABASE_WORK_MEM_MB; DEFAULT_WORK_MEM_MB). */
  databaseWorkMemMb: number;
}

/**
 * PostgreSQL's work_mem for this app's connections unless configured (DATABASE_WORK_MEM_MB; core/db/database.ts
 * sets it). Past work_mem a search's GIN bitmap turns lossy, and every row of its lossy pages is read again and
 * rechecked, TOASTed document included. At 1M resources and the server's default 4 MB, three common words
 * rechecked 43,601 rows to count 10,001; five such counts took 122–349 ms at 4 MB and 70–152 ms at 64 MB, and
 * 16 MB (exact bitmaps to ~200k pages) served `GET /resources?search=` as well as 64 MB: p50 125 → 80–95 ms.
 */
export const DEFAULT_WORK_MEM_MB = 16;

/**
 * One Node process keeps a few queries in flight per core it has (it parses and renders between round trips):
 * 4 per CPU, at least 4 and at most 20, so that several processes stay well under PostgreSQL's default 100
 * connections. Measured on 2 cores: 5, 10 and 20 connections served the same; 2 cost ~40% of reads.
 */
export function defaultPoolSize(cpus = availableParallelism()): number {
  return Math.min(20, Math.max(4, 4 * cpus));
}

function databaseUrl(env: Env): string | undefined {
  const raw = text(env, 'DATABASE_URL');
  if (raw === undefined || raw === ':memory:') return raw;
  if (!/^postgres(ql)?:\/\//.test(raw) && !raw.startsWith('sqlite:')) {
    throw new ConfigError('DATABASE_URL', 'must be a postgres:// URL, sqlite:<path> or :memory:');
  }
  return raw;
}

export function databaseConfig(env: Env): DatabaseConfig {
  return {
    databaseUrl: databaseUrl(env),
    sqliteSynchronous: oneOf(env, 'SQLITE_SYNCHRONOUS', ['FULL', 'NORMAL'] as const, 'FULL'),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', defaultPoolSize(), 1, 1_000),
    databaseWorkMemMb: integer(env, 'DATABASE_WORK_MEM_MB', DEFAULT_WORK_MEM_MB, 1, 2_048),
  };
}
