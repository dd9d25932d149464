// One portable migration set, listed in code (no directory scanning) so it works from tsx and from dist alike.
import { Migrator } from 'kysely';
import type { Kysely, Migration, MigrationProvider } from 'kysely';
import type { DialectName } from './database.js';
import type { DB } from './schema.js';
import { timestampType } from './dialect.js';
import { accounts } from './migrations/0001_accounts.js';
import { teams } from './migrations/0002_teams.js';

export interface MigrationContext {
  dialect: DialectName;
  /** Column type for timestamps on this dialect. */
  ts: 'timestamptz' | 'text';
}

type MigrationFactory = (context: MigrationContext) => Migration;

/** Append only. Names sort in order of application. */
const MIGRATIONS: Record<string, MigrationFactory> = {
  '0001_accounts': accounts,
  '0002_teams': teams,
};

class CodeMigrationProvider implements MigrationProvider {
  constructor(private readonly context: MigrationContext) {}

  getMigrations(): Promise<Record<string, Migration>> {
    const built: Record<string, Migration> = {};
    for (const [name, factory] of Object.entries(MIGRATIONS)) built[name] = factory(this.context);
    return Promise.resolve(built);
  }
}

export async function migrateToLatest(db: Kysely<DB>, dialect: DialectName): Promise<string[]> {
  const migrator = new Migrator({
    db: db as unknown as Kysely<unknown>,
    provider: new CodeMigrationProvider({ dialect, ts: timestampType(dialect) }),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`Migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return (results ?? [])
    .filter((result) => result.status === 'Success')
    .map((result) => result.migrationName);
}
