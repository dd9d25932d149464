// `npm run bench:lookup`: the lookups by hash at scale (spec/extensions.md §2.1). Seeds BENCH_LOOKUP_RESOURCES
// (default 10,000) resources with BENCH_LOOKUP_VERSIONS (default 10) versions of one file each, so 100,000 files
// by default, straight into the database, then measures through the app (in process, app.inject: routing,
// validation, service, queries and serialization; no sockets) BENCH_LOOKUP_REQUESTS (default 200) requests of:
//   - POST /version-files/lookup with 1,000 sha512 hashes (900 of stored files, 100 unknown),
//   - POST /version-files/update with the same hashes and a game version filter,
// anonymous and signed in as a team member (the costlier visibility path): p50/p99 latency and statements per
// request, counted by the database's query observer.
// BENCH_DATABASE_URL selects PostgreSQL (a fresh schema is created in that database and dropped after), default a
// fresh SQLite file in a temporary directory.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import type { Insertable, Kysely } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { systemClock } from '../src/core/clock.js';
import { openDatabase } from '../src/core/db/database.js';
import { migrateToLatest } from '../src/core/db/migrator.js';
import type { DB } from '../src/core/db/schema.js';
import { newId } from '../src/core/ids.js';
import { createApiKeysService } from '../src/modules/api-keys/api-keys.service.js';
import { seedResources, seedUsers } from './seed.js';

const RESOURCES = Number(process.env['BENCH_LOOKUP_RESOURCES'] ?? 10_000);
const VERSIONS = Number(process.env['BENCH_LOOKUP_VERSIONS'] ?? 10);
const REQUESTS = Number(process.env['BENCH_LOOKUP_REQUESTS'] ?? 200);
const BATCH = 500;
const DAY = 86_400_000;

const hex = (seed: string, algorithm: 'sha1' | 'sha256' | 'sha512') =>
  createHash(algorithm).update(seed).digest('hex');

/** A fresh PostgreSQL schema in the database at `baseUrl`, or undefined for SQLite. */
async function postgresSchema(baseUrl: string | undefined) {
  if (baseUrl === undefined) return undefined;
  const schema = `bench_lookup_${process.pid}_${Date.now().toString(36)}`;
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: baseUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await run(`create schema ${schema}`);
  const url = new URL(baseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { url: url.toString(), drop: () => run(`drop schema ${schema} cascade`) };
}

/** Versions and files for every seeded resource: statuses mixed, one game version each, approval times spread. */
async function seedFiles(db: Kysely<DB>): Promise<{ sha512s: string[]; gameVersion: string }> {
  const resources = await db.selectFrom('resources').select(['id', 'status']).orderBy('id').execute();
  const gameVersions = await db.selectFrom('game_versions').select(['id', 'name']).execute();
  const statuses = ['APPROVED', 'APPROVED', 'APPROVED', 'APPROVED', 'ARCHIVED', 'DRAFT', 'PENDING'] as const;
  const channels = ['RELEASE', 'RELEASE', 'BETA', 'ALPHA'] as const;
  const sha512s: string[] = [];
  const base = Date.now() - 400 * DAY;
  for (let start = 0; start < resources.length; start += BATCH / VERSIONS) {
    const versions: Insertable<DB['resource_versions']>[] = [];
    const files: Insertable<DB['version_files']>[] = [];
    const links: Insertable<DB['version_game_versions']>[] = [];
    for (const [r, resource] of resources.slice(start, start + BATCH / VERSIONS).entries()) {
      for (let v = 0; v < VERSIONS; v++) {
        const versionId = newId();
        const fileId = newId();
        const at = new Date(base + ((start + r) % 300) * DAY + v * 3_600_000).toISOString();
        const status = statuses[(start + r + v) % statuses.length]!;
        versions.push({
          id: versionId,
          resource_id: resource.id,
          version_number: `1.${v}.0`,
          name: null,
          channel: channels[v % channels.length]!,
          status,
          changelog: null,
          submission_note: null,
          rejection_reason: null,
          created_at: at,
          updated_at: at,
          submitted_at: status === 'DRAFT' ? null : at,
          approved_at: status === 'APPROVED' || status === 'ARCHIVED' ? at : null,
        });
        const seed = `${resource.id}/${v}`;
        const sha512 = hex(seed, 'sha512');
        sha512s.push(sha512);
        files.push({
          id: fileId,
          version_id: versionId,
          storage_key: `files/${resource.id}/${versionId}/${fileId}`,
          file_name: `mod-1.${v}.0.jar`,
          display_name: null,
          file_size: 1_048_576,
          file_type: 'jar',
          content_type: 'application/java-archive',
          sha1: hex(seed, 'sha1'),
          sha256: hex(seed, 'sha256'),
          sha512,
          is_primary: true,
          uploaded_at: at,
        });
        links.push({ version_id: versionId, game_version_id: gameVersions[v % gameVersions.length]!.id });
      }
    }
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('resource_versions').values(versions).execute();
      await trx.insertInto('version_files').values(files).execute();
      await trx.insertInto('version_game_versions').values(links).execute();
    });
  }
  return { sha512s, gameVersion: gameVersions[0]!.name };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-lookup-'));
  const postgres = await postgresSchema(process.env['BENCH_DATABASE_URL']);
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: postgres?.url ?? `sqlite:${join(dataDir, 'bench.db')}`,
    PUBLIC_URL: 'http://bench.test',
    SECRET: 'bench-secret-bench-secret-bench-secret-0123456789',
    RATE_LIMIT: 'off',
    LOG_LEVEL: 'warn',
  });
  let statements = 0;
  let statementMs: number[] = [];
  const database = openDatabase(config, {
    observeQuery: (_operation, seconds) => {
      statements += 1;
      statementMs.push(seconds * 1000);
    },
  });
  try {
    await migrateToLatest(database.db, database.dialect);
    const started = performance.now();
    await seedUsers(database.db, 2_000);
    await seedResources(database.db, RESOURCES);
    const { sha512s, gameVersion } = await seedFiles(database.db);
    // Fresh statistics, as autovacuum (PostgreSQL) or a periodic ANALYZE would have them: without them the
    // planner guesses a few hundred rows per table and joins 1,000 hashes the slow way round.
    await sql`analyze`.execute(database.db);
    const seedSeconds = (performance.now() - started) / 1000;
    const member = await database.db
      .selectFrom('team_members')
      .select('user_id')
      .orderBy('team_id')
      .executeTakeFirstOrThrow();
    const key = await createApiKeysService({
      db: database.db,
      dialect: database.dialect,
      clock: systemClock,
    }).create(member.user_id, { name: 'bench' });
    const app = await buildApp({ config, database });
    await app.ready();
    console.log(
      `${database.dialect}: ${RESOURCES} resources, ${sha512s.length} files seeded in ${seedSeconds.toFixed(1)} s`,
    );
    const random = (n: number) => Math.floor(Math.random() * n);
    const hashes = () => [
      ...Array.from({ length: 900 }, () => sha512s[random(sha512s.length)]!),
      ...Array.from({ length: 100 }, (_, i) => hex(`absent ${i} ${Math.random()}`, 'sha512')),
    ];
    const cases = [
      { name: 'lookup', url: '/version-files/lookup', body: () => ({ hashes: hashes() }), key: 'files' },
      {
        name: 'update',
        url: '/version-files/update',
        body: () => ({ hashes: hashes(), gameVersions: [gameVersion] }),
        key: 'updates',
      },
    ] as const;
    for (const who of [
      { name: 'anonymous', headers: {} },
      { name: 'team member', headers: { 'x-api-key': key.key } },
    ]) {
      for (const test of cases) {
        const times: number[] = [];
        const queries: number[] = [];
        const dbMs: number[] = [];
        let answered = 0;
        for (let i = 0; i < REQUESTS + 5; i++) {
          const payload = test.body();
          const before = statements;
          statementMs = [];
          const at = performance.now();
          const response = await app.inject({ method: 'POST', url: test.url, headers: who.headers, payload });
          const elapsed = performance.now() - at;
          if (response.statusCode !== 200)
            throw new Error(`${test.url}: ${response.statusCode} ${response.body}`);
          if (i < 5) continue; // warm-up
          times.push(elapsed);
          queries.push(statements - before);
          dbMs.push(statementMs.reduce((sum, ms) => sum + ms, 0));
          answered += Object.keys((response.json() as Record<string, object>)[test.key]!).length;
        }
        times.sort((a, b) => a - b);
        const distinct = [...new Set(queries)].sort((a, b) => a - b).join('/');
        console.log(
          `${test.name.padEnd(6)} ${who.name.padEnd(11)} 1,000 hashes: p50 ${percentile(times, 50).toFixed(1)} ms, ` +
            `p99 ${percentile(times, 99).toFixed(1)} ms, statements/request ${distinct}, ` +
            `${(answered / REQUESTS).toFixed(0)} answered per request, ` +
            `statements' own time p50 ${percentile(
              dbMs.sort((a, b) => a - b),
              50,
            ).toFixed(1)} ms`,
        );
      }
    }
    await app.close();
  } finally {
    await database.destroy();
    await postgres?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
