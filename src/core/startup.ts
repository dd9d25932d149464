// Start-up checks and their one-line failures. An operator whose database, bucket or port is wrong needs one line
// naming the cause and the variable to fix, not a stack trace; every failure here exits 1.
import { sql } from 'kysely';
import type { Config } from '../config.js';
import { systemClock } from './clock.js';
import { openDatabase } from './db/database.js';
import { createStorage } from './storage/index.js';

/** A failure whose message is already fit for the operator: "<what failed>: <cause> — check <VARIABLE>". */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}

/** The innermost useful text of an error: pg reports a refused localhost as an AggregateError with no message. */
export function causeOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const nested = (error as { errors?: unknown[] }).errors?.[0];
  const code = (error as NodeJS.ErrnoException).code;
  const message = error.message || (nested !== undefined ? causeOf(nested) : '') || code || error.name;
  return code !== undefined && !message.includes(code) ? `${message} (${code})` : message;
}

/** The URL without its password, for a message that may end up in a log. */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

function describeDatabase(config: Config): { where: string; variable: string } {
  const url = config.databaseUrl;
  if (url === undefined) return { where: `SQLite in ${config.dataDir}`, variable: 'DATA_DIR' };
  if (url.startsWith('sqlite:'))
    return { where: `SQLite at ${url.slice('sqlite:'.length)}`, variable: 'DATABASE_URL' };
  return { where: `PostgreSQL at ${withoutPassword(url)}`, variable: 'DATABASE_URL' };
}

/** Opens the database and runs one query, the way the app is about to. */
async function checkDatabase(config: Config): Promise<void> {
  const { where, variable } = describeDatabase(config);
  let database;
  try {
    database = openDatabase(config);
    await sql`select 1`.execute(database.db);
  } catch (error) {
    throw new StartupError(`Cannot open the database (${where}): ${causeOf(error)} — check ${variable}`);
  } finally {
    await database?.destroy().catch(() => {});
  }
}

async function checkStorage(config: Config): Promise<void> {
  try {
    await createStorage(config, { clock: systemClock }).ping();
  } catch (error) {
    const message =
      config.storage === 's3'
        ? `Cannot reach S3 bucket "${config.s3.bucket}" at ${config.s3.endpoint ?? 'AWS'}: ${causeOf(error)} — check S3_ENDPOINT, S3_BUCKET and the S3 credentials`
        : `Cannot write file storage under ${config.dataDir}: ${causeOf(error)} — check DATA_DIR`;
    throw new StartupError(message);
  }
}

/** Fails with a StartupError naming the variable when the database or storage cannot be used. */
export async function checkDependencies(config: Config): Promise<void> {
  await checkDatabase(config);
  await checkStorage(config);
}

/** The one line for a failure to listen. */
export function describeListenFailure(error: unknown, config: Config): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const address = `${config.host}:${config.port}`;
  switch (code) {
    case 'EADDRINUSE':
      return `Cannot listen on ${address}: the port is already in use — check PORT`;
    case 'EACCES':
      return `Cannot listen on ${address}: permission denied (ports below 1024 need privileges) — check PORT`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return `Cannot listen on ${address}: no such local address — check HOST`;
    default:
      return `Cannot listen on ${address}: ${causeOf(error)} — check HOST and PORT`;
  }
}
