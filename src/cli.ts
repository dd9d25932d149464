// Operator commands: `npm run --silent cli -- <command> [--flags]`; `cli --help` lists them, `cli <command> --help`
// explains one. A result is one JSON line on stdout; progress and errors go to stderr.
// Exit codes: 0 done, 1 failed (one line saying why), 2 usage error (with the command's usage).
import { ConfigError, loadConfig } from './config.js';
import {
  banCommand,
  createUserCommand,
  revokeKeysCommand,
  setRoleCommand,
  unbanCommand,
} from './cli/accounts.js';
import { backupCommand } from './cli/backup.js';
import { parse, UsageError } from './cli/command.js';
import type { Command } from './cli/command.js';
import { jobsCommand } from './cli/jobs.js';
import { migrateCommand } from './cli/migrate.js';
import { restoreCommand } from './cli/restore.js';
import { searchCommand } from './cli/search.js';
import { seedDemoCommand } from './cli/seed-demo.js';

const COMMANDS: Command[] = [
  createUserCommand,
  setRoleCommand,
  banCommand,
  unbanCommand,
  revokeKeysCommand,
  migrateCommand,
  jobsCommand,
  backupCommand,
  restoreCommand,
  seedDemoCommand,
  searchCommand,
];

const OVERVIEW = `Usage: cli <command> [options]      (npm run --silent cli -- <command> …)

Commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(13)} ${command.summary}`).join('\n')}

\`cli <command> --help\` explains a command. Configuration comes from the same environment variables as the
server (DATA_DIR, DATABASE_URL, STORAGE, …).`;

/** What went wrong, on one line: the message, or the error's code or name when it has no message. */
function oneLine(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const text = error.message.trim() || (typeof code === 'string' ? code : error.name);
  return text.split('\n')[0]!;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? console.error : console.log)(OVERVIEW);
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (command === undefined) {
    console.error(`Unknown command ${name}\n\n${OVERVIEW}`);
    return 2;
  }
  try {
    const { values, positionals } = parse(command, args);
    if (values['help'] === true) {
      console.log(command.help);
      return 0;
    }
    await command.run({ values, positionals, config: loadConfig() });
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${command.help}`);
      return 2;
    }
    if (error instanceof ConfigError) {
      console.error(error.message);
      return 1;
    }
    console.error(oneLine(error));
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(oneLine(error));
    process.exit(1);
  },
);
