// buildTestApp: the real app on a real, freshly migrated database.
// SQLite on a file in a temp dir by default (as in production: a write connection and a read connection); a fresh PostgreSQL schema per app when TEST_DATABASE_URL is set;
// S3 storage (s3rver, a bucket per app) when TEST_S3_ENDPOINT is set, local disk in a temp dir otherwise.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import type { App } from '../../src/app.js';
import { ManualClock } from '../../src/core/clock.js';
import { openDatabase } from '../../src/core/db/database.js';
import { migrateToLatest } from '../../src/core/db/migrator.js';
import { loadConfig } from '../../src/config.js';
import type { Config } from '../../src/config.js';

export interface TestApp {
  app: App;
  clock: ManualClock;
  config: Config;
  close(): Promise<void>;
}

const TEST_SECRET = 'test-secret-test-secret-test-secret-0123456789';

const S3RVER_KEY = 'S3RVER';

/** A name no other test app of any process takes: `t`, the pid, the time and a random part, joined. */
const uniqueName = (separator: '-' | '_') =>
  ['t', process.pid, Date.now().toString(36), Math.random().toString(36).slice(2, 8)].join(separator);

/**
 * A new, empty bucket on the S3 server at `endpoint`, one per app: test files run side by side, and an app's
 * storage sweep removes every object of its bucket that its own database does not name.
 */
async function freshBucket(endpoint: string): Promise<string> {
  const bucket = uniqueName('-');
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: S3RVER_KEY, secretAccessKey: S3RVER_KEY },
  });
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
  return bucket;
}

/** Migrates the test schema at `url` (freshPostgresUrl) from this process: for server processes started on it with MIGRATE=false. */
export async function migrateSchema(url: string): Promise<void> {
  const database = openDatabase({ databaseUrl: url, dataDir: tmpdir(), sqliteSynchronous: 'NORMAL' });
  try {
    await migrateToLatest(database.db, database.dialect);
  } finally {
    await database.destroy();
  }
}

/** A new, empty schema on the server at `baseUrl`: its URL (search_path pinned to it) and a way to drop it. */
export async function freshPostgresUrl(baseUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const schema = uniqueName('_');
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      try {
        await client.query(`drop schema ${schema} cascade`);
      } finally {
        await client.end();
      }
    },
  };
}

export async function buildTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'marketplace-test-'));
  const pgBase = process.env['TEST_DATABASE_URL'];
  const database = pgBase ? await freshPostgresUrl(pgBase) : undefined;
  const s3Endpoint = process.env['TEST_S3_ENDPOINT'];
  const s3Env: Record<string, string> = s3Endpoint
    ? {
        STORAGE: 's3',
        S3_ENDPOINT: s3Endpoint,
        S3_BUCKET: await freshBucket(s3Endpoint),
        S3_ACCESS_KEY_ID: S3RVER_KEY,
        S3_SECRET_ACCESS_KEY: S3RVER_KEY,
        S3_FORCE_PATH_STYLE: 'true',
      }
    : {};
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: database?.url ?? `sqlite:${join(dataDir, 'test.db')}`,
    // Durability is not under test; fsync per commit only slows the suite.
    SQLITE_SYNCHRONOUS: 'NORMAL',
    PUBLIC_URL: 'http://api.test',
    SECRET: TEST_SECRET,
    RATE_LIMIT: 'off',
    LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'silent',
    ...s3Env,
    ...env,
  });
  const clock = new ManualClock(new Date());
  let app: App;
  const build = async () => {
    const built = await buildApp({ config, clock });
    await built.ready();
    return built;
  };
  try {
    // (The lock is released before a failed build's schema is dropped below.)
    app = await build();
  } catch (error) {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    app,
    clock,
    config,
    async close() {
      await app.close();
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
