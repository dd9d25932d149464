import { configDefaults, defineConfig } from 'vitest/config';

const pg = process.env['TEST_DATABASE_URL'] !== undefined;
const s3 = process.env['TEST_S3_ENDPOINT'] !== undefined;

// Tests that pin their own database and storage (real processes started with an explicit SQLite file and local
// disk: the CLI, backup/restore, start-up, shutdown, the production install). Under test:pg and test:s3 they would
// repeat identical work, minutes of process start-ups, so only the default run has them.
const PINNED_TO_THEIR_OWN_SETUP = [
  'test/accounts/cli.test.ts',
  'test/platform/backup.test.ts',
  'test/platform/startup.test.ts',
  'test/platform/lifecycle.test.ts',
  'test/platform/production-install.test.ts',
];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // *.pg.test.ts need a PostgreSQL server they can disturb (npm run test:pg sets TEST_DATABASE_URL).
    exclude: [
      ...configDefaults.exclude,
      ...(pg ? [] : ['test/**/*.pg.test.ts']),
      ...(pg || s3 ? PINNED_TO_THEIR_OWN_SETUP : []),
    ],
    environment: 'node',
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    setupFiles: ['test/setup.ts'],
  },
});
