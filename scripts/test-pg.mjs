// `npm run test:pg`: the whole suite on PostgreSQL, in a database created for this run and dropped after.
// PG_URL names the server (default: the local one with trust auth); each test file gets its own schema.
import { spawnSync } from 'node:child_process';
import pg from 'pg';

const base = process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const name = `marketplace_test_${Date.now().toString(36)}_${process.pid}`;

async function admin(statement) {
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

await admin(`create database ${name}`);
const url = new URL(base);
url.pathname = `/${name}`;
const result = spawnSync(
  process.execPath,
  ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)],
  {
    stdio: 'inherit',
    env: { ...process.env, TEST_DATABASE_URL: url.toString() },
  },
);
await admin(`drop database if exists ${name} with (force)`);
process.exit(result.status ?? 1);
