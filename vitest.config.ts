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

// Files that count the statements a request runs. On PostgreSQL a kept answer is served while the cluster's
// snapshot has not moved (src/core/db/pg-change-signal.ts): another file writing at the same moment makes it
// render again, and count more. Under test:pg they run after the others, one at a time.
const STATEMENT_COUNTING = [
  'test/core/change-signal.test.ts',
  'test/core/change-signal.pg.test.ts',
  'test/moderation/queue-position-statements.test.ts',
  'test/platform/lean-reads.test.ts',
  'test/versions/dependencies/queries.test.ts',
  'test/versions/lookup/lookup.test.ts',
  'test/versions/lookup/updates.test.ts',
];

// Files that replace a module (vi.mock): with modules shared between files they would leak the replacement into
// the files after them in the same worker, or find the real module already loaded, so each runs in its own.
const MOCKING = ['test/platform/http.test.ts', 'test/platform/lean-reads.test.ts'];

const INCLUDE = ['test/**/*.test.ts', 'src/**/*.test.ts'];
const EXCLUDE = [
  ...configDefaults.exclude,
  // *.pg.test.ts need a PostgreSQL server they can disturb (npm run test:pg sets TEST_DATABASE_URL).
  ...(pg ? [] : ['test/**/*.pg.test.ts']),
  ...(pg || s3 ? PINNED_TO_THEIR_OWN_SETUP : []),
  ...(s3 ? [...STORAGE_INDEPENDENT_PROCESSES, ...STORAGE_INDEPENDENT_SUITES] : []),
];

const shared = {
  environment: 'node',
  pool: 'forks' as const,
  // One more test file at a time than there are cores (vitest's default is one fewer): most of a file's time is
  // spent importing the app and waiting on databases, sockets and child processes, not on the CPU. On 2 cores
  // the default ran one file at a time, and CI's three suites took 72 min; 3 at once, the SQLite suite 8.4 min.
  maxWorkers: availableParallelism() + 1,
  testTimeout: 30_000,
  hookTimeout: 60_000,
  setupFiles: ['test/setup.ts'],
  // Files in one worker share its modules. Isolated, each file imported the whole app again, 3–4 s: 738 s of
  // the SQLite suite's 957 s (2 cores); shared, 59 s of 610 s. Every file builds its own apps (buildApp), and
  // module-level state is either constant or kept per database (WeakMaps keyed by an app's Kysely instance).
  isolate: false,
};

export default defineConfig({
  test: pg
    ? {
        projects: [
          {
            test: {
              ...shared,
              name: 'pg',
              include: INCLUDE,
              exclude: [...EXCLUDE, ...STATEMENT_COUNTING, ...MOCKING],
            },
          },
          {
            test: {
              ...shared,
              name: 'pg, isolated',
              include: MOCKING,
              exclude: [...EXCLUDE, ...STATEMENT_COUNTING],
              isolate: true,
            },
          },
          {
            test: {
              ...shared,
              name: 'pg (statement counts, alone)',
              include: STATEMENT_COUNTING,
              exclude: EXCLUDE,
              maxWorkers: 1,
              isolate: true,
              sequence: { groupOrder: 1 },
            },
          },
        ],
      }
    : {
        projects: [
          {
            test: { ...shared, name: 'shared modules', include: INCLUDE, exclude: [...EXCLUDE, ...MOCKING] },
          },
          { test: { ...shared, name: 'isolated', include: MOCKING, exclude: EXCLUDE, isolate: true } },
        ],
      },
});
