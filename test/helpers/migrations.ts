// A migration as the migrator builds it for a test app's database: its dialect and timestamp type.
import { timestampType } from '../../src/core/db/dialect.js';
import type { MigrationContext } from '../../src/core/db/migrator.js';
import type { TestApp } from './app.js';

export function migrationFor<M>(t: TestApp, factory: (context: MigrationContext) => M): M {
  const { dialect } = t.app.context.database;
  return factory({ dialect, ts: timestampType(dialect) });
}
