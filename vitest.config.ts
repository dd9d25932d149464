import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // *.pg.test.ts need a PostgreSQL server they can disturb (npm run test:pg sets TEST_DATABASE_URL).
    exclude: [
      ...configDefaults.exclude,
      ...(process.env['TEST_DATABASE_URL'] ? [] : ['test/**/*.pg.test.ts']),
    ],
    environment: 'node',
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    setupFiles: ['test/setup.ts'],
  },
});
