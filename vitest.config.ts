import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

const pg = process.env['TEST_DATABASE_URL'] !== undefined;
const s3 = process.env['TEST_S3_ENDPOINT'] !== undefined;

// Tests that pin their own database and storage (real processes started with an explicit SQLite file and local
// disk: the CLI, backup/restore, start-up, shutdown, the production install). Under test:pg and test:s3 they would
// repeat identical work, minutes of process start-ups, so only the default run has them.
const PINNED_TO_THEIR_OWN_SETUP = [
  'test/accounts/cli.test.ts',
  'test/search/cli-rebuild.test.ts',
  'test/platform/backup.test.ts',
  'test/platform/startup.test.ts',
  'test/platform/lifecycle.test.ts',
  'test/platform/production-install.test.ts',
];

// Real server processes on their own database that store no files: under test:s3 (SQLite, S3 storage) they would
// repeat the default run's work exactly; they do run under test:pg, where the database differs.
const STORAGE_INDEPENDENT_PROCESSES = ['test/webhooks/crash.test.ts'];
// Search stores no files: under test:s3 (SQLite, S3 storage) these would repeat the default run's work exactly.
const STORAGE_INDEPENDENT_SUITES = ['test/search/**', 'test/core/change-signal.test.ts'];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // *.pg.test.ts need a PostgreSQL server they can disturb (npm run test:pg sets TEST_DATABASE_URL).
    exclude: [
      ...configDefaults.exclude,
      ...(pg ? [] : ['test/**/*.pg.test.ts']),
      ...(pg || s3 ? PINNED_TO_THEIR_OWN_SETUP : []),
      ...(s3 ? [...STORAGE_INDEPENDENT_PROCESSES, ...STORAGE_INDEPENDENT_SUITES] : []),
    ],
    environment: 'node',
    pool: 'forks',
    // One more test file at a time than there are cores (vitest's default is one fewer): most of a file's time is
    // spent importing the app and waiting on databases, sockets and child processes, not on the CPU. On 2 cores
    // the default ran one file at a time, and CI's three suites took 72 min; 3 at once, the SQLite suite took 8.4.
    maxWorkers: availableParallelism() + 1,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    setupFiles: ['test/setup.ts'],
  },
});
