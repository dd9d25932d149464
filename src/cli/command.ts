// The shape of an operator command and the few things every command shares: usage errors (exit 2), progress on
// stderr (stdout carries only results, one JSON line, so scripts can read it), and opening the database or the app.
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import type { App } from '../app.js';
import type { Config } from '../config.js';
import type { Database } from '../core/db/database.js';

/** A mistake in how the command was called: exit code 2 and the command's usage. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export type Options = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | undefined>;

export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** The full `--help` text: synopsis, options, an example. */
  help: string;
  options: Options;
  /** Positional arguments allowed (e.g. `jobs run NAME`). */
  positionals?: boolean;
  run(input: { values: Values; positionals: string[]; config: Config }): Promise<void>;
}

export function parse(command: Command, args: string[]) {
  try {
    const parsed = parseArgs({
      args,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: command.positionals === true,
      strict: true,
    });
    return { values: parsed.values as Values, positionals: parsed.positionals };
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** A required string option, or a usage error naming it. */
export function required(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

/** One result line on stdout. */
export function printResult(result: unknown): void {
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** Progress for a person watching; stderr so that stdout stays one machine-readable line. */
export function progress(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** The database, migrated when MIGRATE allows it, closed after `work`. */
export async function withDatabase<T>(config: Config, work: (database: Database) => Promise<T>): Promise<T> {
  const [{ openDatabase }, { migrateToLatest }] = await Promise.all([
    import('../core/db/database.js'),
    import('../core/db/migrator.js'),
  ]);
  const database = openDatabase(config);
  try {
    if (config.migrate) await migrateToLatest(database.db, database.dialect);
    return await work(database);
  } finally {
    await database.destroy();
  }
}

/**
 * The whole app, not listening, for commands that need its services and jobs wired as in the server. Its log
 * goes quiet unless LOG_LEVEL is set, so it never mixes with the result line.
 */
export async function withApp<T>(config: Config, work: (app: App) => Promise<T>): Promise<T> {
  const quiet = (process.env['LOG_LEVEL'] ?? '').trim() === '';
  // Loaded on demand: the whole app takes seconds to import, which `--help` and account commands need not pay.
  const { buildApp } = await import('../app.js');
  const app = await buildApp({ config: { ...config, logLevel: quiet ? 'silent' : config.logLevel } });
  try {
    await app.ready();
    return await work(app);
  } finally {
    await app.close();
  }
}
