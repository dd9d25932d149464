// Operator commands: `npm run --silent cli -- <command> [--flags]`.
import { parseArgs } from 'node:util';
import { loadConfig } from './config.js';
import { systemClock } from './core/clock.js';
import { openDatabase } from './core/db/database.js';
import { migrateToLatest } from './core/db/migrator.js';
import type { Role } from './core/db/schema.js';
import { ROLES } from './core/auth/roles.js';
import { createAccount } from './modules/auth/accounts.js';
import { createApiKeysService } from './modules/api-keys/api-keys.service.js';

const USAGE = `Usage:
  cli migrate
  cli create-user --username U --email E --password P [--role USER|MODERATOR|ADMIN|SUPER_ADMIN]`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const config = loadConfig();
  const database = openDatabase(config);
  try {
    if (command === 'migrate') {
      const applied = await migrateToLatest(database.db, database.dialect);
      console.log(JSON.stringify({ applied }));
      return 0;
    }
    if (command === 'create-user') {
      const { values } = parseArgs({
        args: rest,
        options: {
          username: { type: 'string' },
          email: { type: 'string' },
          password: { type: 'string' },
          role: { type: 'string', default: 'USER' },
        },
      });
      const { username, email, password, role } = values;
      if (!username || !email || !password)
        throw new Error('--username, --email and --password are required');
      if (!/^[a-zA-Z0-9_]{3,32}$/.test(username))
        throw new Error('--username must match ^[a-zA-Z0-9_]{3,32}$');
      if (password.length < 8) throw new Error('--password must have at least 8 characters');
      if (!(ROLES as readonly string[]).includes(role!))
        throw new Error(`--role must be one of ${ROLES.join(', ')}`);
      if (config.migrate) await migrateToLatest(database.db, database.dialect);
      const user = await createAccount(database.db, systemClock, {
        username,
        email,
        password,
        role: role as Role,
      });
      const key = await createApiKeysService({
        db: database.db,
        dialect: database.dialect,
        clock: systemClock,
      }).create(user.id, {
        name: 'cli',
      });
      console.log(JSON.stringify({ id: user.id, username: user.username, role: user.role, apiKey: key.key }));
      return 0;
    }
    console.error(USAGE);
    return 2;
  } finally {
    await database.destroy();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
