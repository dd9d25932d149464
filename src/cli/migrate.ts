// migrate and migrate --status: the migrator the server runs at start, on demand.
import { printResult, progress } from './command.js';
import type { Command } from './command.js';

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'Apply pending database migrations (--status: list them without applying)',
  help: `Usage: cli migrate [--status]

Applies every migration not yet applied and prints {"applied": [names]}. With --status, applies nothing and
prints {"migrations": [{name, appliedAt}], "pending": [names]}.

  --status        show applied and pending migrations only`,
  options: { status: { type: 'boolean' } },
  async run({ values, config }) {
    const [{ migrateToLatest, migrationStatus }, { openDatabase }] = await Promise.all([
      import('../core/db/migrator.js'),
      import('../core/db/database.js'),
    ]);
    const database = openDatabase(config);
    try {
      if (values['status'] === true) {
        const migrations = await migrationStatus(database.db, database.dialect);
        printResult({
          migrations,
          pending: migrations.filter((migration) => migration.appliedAt === null).map(({ name }) => name),
        });
        return;
      }
      progress('Applying migrations…');
      printResult({ applied: await migrateToLatest(database.db, database.dialect) });
    } finally {
      await database.destroy();
    }
  },
};
