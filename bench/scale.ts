// `npm run bench:scale` (issue 17): search and filters at 10k, 100k and 1M resources on SQLite and PostgreSQL.
// For each dialect and size: seed a fresh database (bench/scale/seed.ts: a realistic catalogue written straight
// into the tables, then the search indexes rebuilt; or reuse a kept one, BENCH_SCALE_KEEP below), report seconds
// per phase and the search index size, ANALYZE (PostgreSQL: VACUUM (ANALYZE), see `seeded`; and on every run
// the search indexes' pending entries merged, see `run`), start the compiled service (rate limits off), then
// for every query kind ask ≥ 1,000 DISTINCT URLs one at a time (latency is the server's and no answer cache
// helps) → p50/p99/max, then 50 connections over a rotating list of distinct URLs → req/s, and the CPU cost of
// writes. Prints a table per run, the growth factor smallest → largest size per kind, and writes the results
// as JSON under bench/tmp/ (ignored by git).
//
// Environment: BENCH_SCALE_SIZES (default 10000,100000,1000000), BENCH_SCALE_DIALECTS (sqlite,postgres; default
// both, or postgres alone when BENCH_DATABASE_URL is set), BENCH_DATABASE_URL (a PostgreSQL server URL; default
// postgres://postgres@127.0.0.1:5432/postgres — a database is created and dropped per run), BENCH_SCALE_REQUESTS
// (distinct URLs per kind, default 1000), BENCH_SCALE_KIND_SECONDS (time budget of one kind's sequential
// requests at the largest size, default 20) and BENCH_SCALE_SMALL_KIND_SECONDS (smaller sizes, default 8), BENCH_SCALE_DURATION (seconds of the 50-connection run at the largest size, default 10)
// and BENCH_SCALE_SMALL_DURATION (smaller sizes, default 3; 0 skips), BENCH_SCALE_CONNECTIONS (50),
// BENCH_SCALE_WRITES (requests per write kind, default 200; 0 skips), BENCH_SCALE_KINDS (comma-separated parts
// of kind names), BENCH_SCALE_SEED, BENCH_PIN=0 (no CPU pinning), BENCH_SCALE_FROM_SOURCE=1 (tsx, no build).
//
// BENCH_SCALE_KEEP=<dir>: keep each seeded database and reuse it in later runs (a 1M seed costs many minutes;
// measuring it again should not). SQLite: the file <dir>/scale-<size>-<seed>.db; PostgreSQL: the database
// scale_<size>_<seed> on BENCH_DATABASE_URL's server. Beside either, <dir>/scale-<size>-<seed>.<dialect>.json
// holds what the seed produced (API keys, counts, seconds per phase, ANALYZE seconds, index sizes); it is written
// only once the seed and ANALYZE have finished, so a database without it (an interrupted seed) is seeded again.
// A reused database is measured only: no seed, no ANALYZE (the statistics of its seeding are stored in it), and
// the seed figures printed are those of its seeding. The writes phase runs last and deletes the resources it
// created (DELETE /resources/:id, reported as a write kind too), so a run leaves the catalogue as seeded; what
// stays behind is only the audit and event rows of those writes, which no query kind reads. A run stopped in the
// middle of its writes leaves some of them behind: the next run on the database deletes them first (the
// resources of the benchmark's author account, which owns none of the seeded ones).
// Delete the directory (and DROP DATABASE scale_…) to seed afresh, e.g. after changing the seed or the schema.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../src/core/db/database.js';
import type { Database, DialectName } from '../src/core/db/database.js';
import { migrateToLatest } from '../src/core/db/migrator.js';
import { mergePendingEntries } from '../src/modules/search/pending-entries.js';
import { pin, prepareBuild, sequential, startService, stopService, throughput } from './scale/measure.js';
import type { Latency, Throughput } from './scale/measure.js';
import { distinctUrls, queryContext, queryKinds } from './scale/queries.js';
import { prng } from './scale/random.js';
import { seedScale } from './scale/seed.js';
import type { ScaleSeedResult } from './scale/seed.js';
import { vocabulary } from './scale/text.js';
import { deleteResources, measureWrites } from './scale/writes.js';
import type { WriteCost } from './scale/writes.js';
import { printGrowth, printRun } from './scale/report.js';

const env = process.env;
const sizes = (env['BENCH_SCALE_SIZES'] ?? '10000,100000,1000000').split(',').map(Number);
const adminUrl = env['BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dialects = (env['BENCH_SCALE_DIALECTS'] ?? (env['BENCH_DATABASE_URL'] ? 'postgres' : 'sqlite,postgres'))
  .split(',')
  .map((d) => (d.startsWith('pg') ? 'postgres' : d) as DialectName);
const requestCount = Number(env['BENCH_SCALE_REQUESTS'] ?? 1000);
const kindSeconds = Number(env['BENCH_SCALE_KIND_SECONDS'] ?? 20);
const smallKindSeconds = Number(env['BENCH_SCALE_SMALL_KIND_SECONDS'] ?? 8);
const largeDuration = Number(env['BENCH_SCALE_DURATION'] ?? 10);
const smallDuration = Number(env['BENCH_SCALE_SMALL_DURATION'] ?? 3);
const connections = Number(env['BENCH_SCALE_CONNECTIONS'] ?? 50);
const writeCount = Number(env['BENCH_SCALE_WRITES'] ?? 200);
const onlyKinds = env['BENCH_SCALE_KINDS']?.split(',');
const seed = Number(env['BENCH_SCALE_SEED'] ?? 17);
const keepDir = env['BENCH_SCALE_KEEP'] || undefined;

export interface KindResult {
  kind: string;
  distinct: number;
  latency: Latency;
  throughput?: Throughput;
}

export interface RunResult {
  dialect: DialectName;
  size: number;
  /** The database was a kept seed (BENCH_SCALE_KEEP): seed, ANALYZE and index figures are those of its seeding. */
  reused: boolean;
  counts: ScaleSeedResult['counts'];
  seedSeconds: Record<string, number>;
  analyzeSeconds: number;
  index: { searchBytes: number; totalBytes: number; tables: Record<string, number> };
  /** PostgreSQL: the server's shared_buffers during the run (how much is read without a system call). */
  sharedBuffers?: string;
  kinds: KindResult[];
  writes: Record<string, WriteCost>;
}

const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;
const progress = (message: string) => console.log(`[${elapsed()}] ${message}`);

/** What a kept database was seeded with: written next to it once its seed is complete (BENCH_SCALE_KEEP). */
interface KeptSeed {
  authorKey: string;
  moderatorKey: string;
  counts: ScaleSeedResult['counts'];
  seedSeconds: Record<string, number>;
  analyzeSeconds: number;
  index: RunResult['index'];
}

/**
 * The database of one run: a fresh one dropped afterwards, or with BENCH_SCALE_KEEP the kept one of this size and
 * seed (`kept` set when a complete seed is there to reuse; a database without its JSON is a seed that did not
 * finish, and is seeded again). `save` records a finished seed; `release` drops what is not kept.
 */
interface Target {
  url: string;
  dataDir: string;
  file: string | undefined;
  kept: KeptSeed | undefined;
  save: (seed: KeptSeed) => void;
  release: () => Promise<void>;
}

async function adminQuery(statement: string, values: unknown[] = []) {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    return await admin.query(statement, values);
  } finally {
    await admin.end();
  }
}

async function openTarget(dialect: DialectName, size: number): Promise<Target> {
  // DATA_DIR of the service (stored files; none are read here): always a fresh one.
  const dataDir = mkdtempSync(join(tmpdir(), 'marketplace-scale-'));
  const removeDataDir = async () => rmSync(dataDir, { recursive: true, force: true });
  const jsonPath = keepDir && join(keepDir, `scale-${size}-${seed}.${dialect}.json`);
  const kept =
    jsonPath && existsSync(jsonPath) ? (JSON.parse(readFileSync(jsonPath, 'utf8')) as KeptSeed) : undefined;
  const save = (seeded: KeptSeed) => {
    if (jsonPath) writeFileSync(jsonPath, JSON.stringify(seeded, null, 2));
  };
  if (dialect === 'sqlite') {
    if (keepDir === undefined) {
      const file = join(dataDir, 'scale.db');
      return { url: `sqlite:${file}`, dataDir, file, kept: undefined, save, release: removeDataDir };
    }
    const file = join(keepDir, `scale-${size}-${seed}.db`);
    const reuse = kept !== undefined && existsSync(file);
    if (!reuse) for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
    return {
      url: `sqlite:${file}`,
      dataDir,
      file,
      kept: reuse ? kept : undefined,
      save,
      release: removeDataDir,
    };
  }
  const name = keepDir === undefined ? `scale_${size}_${process.pid}` : `scale_${size}_${seed}`;
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const exists = (await adminQuery('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  const reuse = keepDir !== undefined && kept !== undefined && exists;
  if (!reuse) {
    await adminQuery(`drop database if exists ${name} with (force)`);
    await adminQuery(`create database ${name}`);
  }
  return {
    url: url.toString(),
    dataDir,
    file: undefined,
    kept: reuse ? kept : undefined,
    save,
    release: async () => {
      if (keepDir === undefined) await adminQuery(`drop database if exists ${name} with (force)`);
      await removeDataDir();
    },
  };
}

/** Bytes of the search tables (anything named *search* or *facet*) and of the whole database. */
async function indexSize(database: Database, file: string | undefined): Promise<RunResult['index']> {
  const tables: Record<string, number> = {};
  let totalBytes: number;
  if (database.dialect === 'postgres') {
    const { rows } = await sql<{ name: string; bytes: number }>`
      select relname as name, pg_total_relation_size(c.oid) as bytes from pg_class c
      where c.relkind in ('r', 'm') and c.relnamespace = current_schema()::regnamespace
        and (relname like '%search%' or relname like '%facet%')`.execute(database.db);
    for (const row of rows) tables[row.name] = Number(row.bytes);
    const total = await sql<{ bytes: number }>`select pg_database_size(current_database()) as bytes`.execute(
      database.db,
    );
    totalBytes = Number(total.rows[0]!.bytes);
  } else {
    await sql`pragma wal_checkpoint(truncate)`.execute(database.db);
    try {
      const { rows } = await sql<{ name: string; bytes: number }>`
        select s.name, sum(s.pgsize) as bytes from dbstat s
        left join sqlite_schema m on m.name = s.name
        where s.name like '%search%' or s.name like '%facet%' or m.tbl_name like '%search%'
          or m.tbl_name like '%facet%'
        group by s.name`.execute(database.db);
      for (const row of rows) tables[row.name] = Number(row.bytes);
    } catch (error) {
      console.warn(`dbstat unavailable (${String(error)}): only the file size is reported`);
    }
    totalBytes = statSync(file!).size;
  }
  return { searchBytes: Object.values(tables).reduce((a, b) => a + b, 0), totalBytes, tables };
}

async function writeIds(database: Database) {
  const { db } = database;
  const [categories, tags, versions] = await Promise.all([
    db.selectFrom('resource_categories').select('id').where('resource_type', '=', 'MOD').execute(),
    db.selectFrom('resource_tags').select('id').execute(),
    db.selectFrom('game_versions').select('id').execute(),
  ]);
  return {
    categoryIds: categories.map((c) => c.id),
    tagIds: tags.map((t) => t.id),
    gameVersionIds: versions.map((g) => g.id),
  };
}

/** The seed of a run: reused from a kept database, or written now (then ANALYZE or VACUUM, index sizes, kept). */
async function seeded(database: Database, target: Target, size: number): Promise<KeptSeed> {
  if (target.kept !== undefined) {
    progress(`${database.dialect} ${size}: reusing the kept seed (${target.file ?? target.url})`);
    return target.kept;
  }
  progress(`${database.dialect} ${size}: seeding`);
  await migrateToLatest(database.db, database.dialect);
  const result = await seedScale(database.db, database.dialect, {
    resources: size,
    seed,
    onProgress: (message) => progress(message),
    ...(target.file === undefined ? {} : { sqliteFile: target.file }),
  });
  const phases = Object.entries(result.phases).map(([phase, s]) => `${phase} ${s.toFixed(1)} s`);
  progress(`${database.dialect} ${size}: seeded (${phases.join(', ')})`);
  const analyzeStarted = performance.now();
  // PostgreSQL: VACUUM too. A bulk seed leaves the visibility map empty, so every index-only walk (the tag and
  // type sort indexes, the counts) reads the heap until autovacuum gets to the tables: measured at 1M, tags by
  // date 55 ms p50 and 1.2 s max right after ANALYZE, 13 ms after VACUUM (ANALYZE), which takes ~35 s there.
  if (database.dialect === 'postgres') await sql`vacuum (analyze)`.execute(database.db);
  else await sql`analyze`.execute(database.db);
  const analyzeSeconds = (performance.now() - analyzeStarted) / 1000;
  const kept: KeptSeed = {
    authorKey: result.authorKey,
    moderatorKey: result.moderatorKey,
    counts: result.counts,
    seedSeconds: result.phases,
    analyzeSeconds,
    index: await indexSize(database, target.file),
  };
  target.save(kept);
  return kept;
}

async function run(dialect: DialectName, size: number, mode: 'compiled' | 'source', last: boolean) {
  const target = await openTarget(dialect, size);
  try {
    let database = openDatabase({
      databaseUrl: target.url,
      dataDir: target.dataDir,
      sqliteSynchronous: 'FULL',
    });
    const kept = await seeded(database, target, size);
    const v = vocabulary(seed);
    const context = await queryContext(database, v);
    const ids = await writeIds(database);
    const sharedBuffers =
      dialect === 'postgres'
        ? (await sql<{ shared_buffers: string }>`show shared_buffers`.execute(database.db)).rows[0]!
            .shared_buffers
        : undefined;
    const leftovers = await database.db
      .selectFrom('resources')
      .innerJoin('users', 'users.id', 'resources.owner_id')
      .where('users.username', '=', 'scale_user')
      .select('resources.id')
      .execute();
    if (dialect === 'postgres') {
      // The entries an earlier run's writes left pending in the search indexes, which every search would read
      // (search/pending-entries.ts): the service's job would merge them while the first kind is measured.
      const pages = await mergePendingEntries(database.db);
      if (pages > 0)
        progress(`  merged ${pages} pending pages an earlier run's writes left in the search indexes`);
    }
    await database.destroy();
    database = undefined as never;

    const service = await startService(
      { DATA_DIR: target.dataDir, DATABASE_URL: target.url, SECRET: 'bench-secret-'.padEnd(40, 'x') },
      mode,
    );
    const kinds: KindResult[] = [];
    let writes: Record<string, WriteCost> = {};
    try {
      if (leftovers.length > 0) {
        const removed = await deleteResources(
          service,
          kept.authorKey,
          leftovers.map((row) => row.id),
        );
        progress(`  deleted ${leftovers.length - removed.failed} resources an interrupted run's writes left`);
      }
      const random = prng(seed + size);
      const all = queryKinds(context).filter(
        (kind) => onlyKinds === undefined || onlyKinds.some((part) => kind.name.includes(part)),
      );
      // Warm-up: the JIT and the first statements of each kind, on URLs the measurement does not use.
      const warm = new Set<string>();
      for (const kind of all) {
        const headers: Record<string, string> = kind.auth ? { 'x-api-key': kept.moderatorKey } : {};
        for (const url of distinctUrls(kind, 10, random)) {
          warm.add(url);
          await (await fetch(service.base + url, { headers })).arrayBuffer();
        }
      }
      const duration = last ? largeDuration : smallDuration;
      for (const kind of all) {
        const headers: Record<string, string> = kind.auth ? { 'x-api-key': kept.moderatorKey } : {};
        const urls = distinctUrls(kind, requestCount, random, warm);
        const latency = await sequential(service.base, urls, headers, last ? kindSeconds : smallKindSeconds);
        let load: Throughput | undefined;
        if (duration > 0 && (latency.statuses['200'] ?? 0) > 0) {
          const loadUrls = distinctUrls(kind, Math.max(5_000, requestCount), random, new Set(urls));
          load = await throughput(service, loadUrls, headers, duration, connections);
        }
        kinds.push({
          kind: kind.name,
          distinct: urls.length,
          latency,
          ...(load ? { throughput: load } : {}),
        });
        const rps = load ? `, ${load.rps.toFixed(0)} req/s` : '';
        progress(
          `  ${kind.name}: ${latency.requests} req p50 ${latency.p50.toFixed(1)} ms p99 ${latency.p99.toFixed(1)} ms ` +
            `max ${latency.max.toFixed(0)} ms ${JSON.stringify(latency.statuses)}${rps}`,
        );
      }
      if (writeCount > 0) writes = await measureWrites(service, kept, ids, v, writeCount);
    } finally {
      await stopService(service);
    }
    return {
      dialect,
      size,
      reused: target.kept !== undefined,
      counts: kept.counts,
      seedSeconds: kept.seedSeconds,
      analyzeSeconds: kept.analyzeSeconds,
      index: kept.index,
      ...(sharedBuffers && { sharedBuffers }),
      kinds,
      writes,
    } satisfies RunResult;
  } finally {
    await target.release();
  }
}

async function main(): Promise<void> {
  const mode = prepareBuild();
  const outDir = join('bench', 'tmp');
  mkdirSync(outDir, { recursive: true });
  if (keepDir !== undefined) mkdirSync(keepDir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  progress(
    `sizes ${sizes.join(', ')} on ${dialects.join(', ')}; service ${mode}${pin ? ', pinned to CPU 0' : ''}`,
  );
  for (const dialect of dialects) {
    const results: RunResult[] = [];
    for (const size of sizes) {
      const result = await run(dialect, size, mode, size === Math.max(...sizes));
      results.push(result);
      printRun(result);
      const path = join(outDir, `scale-${dialect}-${stamp}.json`);
      writeFileSync(path, JSON.stringify({ mode, requestCount, kindSeconds, connections, results }, null, 2));
      progress(`results so far: ${path}`);
    }
    printGrowth(results);
  }
  progress('done');
}

await main();
