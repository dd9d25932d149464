// `npm run bench`: seeds a data set, starts the service (rate limits off) and, for each endpoint, a bare
// node:http server answering the same bytes; runs autocannon against both in the same run and prints
// req/s, p50, p99 and the ratio to bare. Each endpoint is measured in BENCH_ROUNDS (default 3) rounds of bare then
// app, BENCH_DURATION seconds each (default 5); the round with the median ratio is reported, with every round's
// ratio beside it, because a shared machine's noise moves single runs by ±10%. BENCH_CONNECTIONS (default 50),
// BENCH_USERS (default 10000), BENCH_RESOURCES (default 100000), BENCH_SERVERS (default 20000),
// BENCH_DATABASE_URL (PostgreSQL; default a fresh SQLite file), BENCH_PIN (default 1: with `taskset` and two or
// more CPUs, the measured server runs on CPU 0 and the load generator on CPU 1, so neither steals the other's
// core and run-to-run noise drops). BENCH_ONLY takes comma-separated parts of endpoint names;
// BENCH_ACCEPT_ENCODING (e.g. `br` or `gzip`) is sent with every request to measure compression, and the
// service's own environment applies (`METRICS=on`, `COMPRESSION=off`).
//
// BENCH_COMPARE=1 with BENCH_DATABASE_URL: seeds the same data set into a fresh SQLite file AND the PostgreSQL
// database, runs both services side by side and measures each round as bare, SQLite, PostgreSQL back to back,
// then prints both tables and the PostgreSQL/SQLite ratios per endpoint (req/s of the median rounds, and CPU µs
// per request), with the targets. Authenticated endpoints send a seeded API key; the write mix (like,
// unlike, follow, unfollow) gives each pass of a connection its own caller (bench/seed.ts seedCallers).
// BENCH_BASELINE=<path of another checkout> runs that build's service on the same databases too, measured in
// the same rounds, and prints this build against it (before/after a change on a shared, noisy machine).
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { openDatabase } from '../src/core/db/database.js';
import { migrateToLatest } from '../src/core/db/migrator.js';
import { ENDPOINTS } from './endpoints.js';
import type { BenchEndpoint } from './endpoints.js';
import { seedCallers, seedResources, seedServers, seedUsers, seedVersions } from './seed.js';
import type { SeededCallers } from './seed.js';
import { benchServers } from './servers.js';

const duration = Number(process.env['BENCH_DURATION'] ?? 5);
const rounds = Math.max(1, Number(process.env['BENCH_ROUNDS'] ?? 3));
const connections = Number(process.env['BENCH_CONNECTIONS'] ?? 50);
const userCount = Number(process.env['BENCH_USERS'] ?? 10_000);
/** Comma-separated parts of endpoint names. */
const only = process.env['BENCH_ONLY']?.split(',');
/** Sent with every measured request (e.g. `br, gzip`), to measure compression; unset sends none. */
const acceptEncoding = process.env['BENCH_ACCEPT_ENCODING'];
const headers: Record<string, string> = acceptEncoding ? { 'accept-encoding': acceptEncoding } : {};
const resourceCount = Number(process.env['BENCH_RESOURCES'] ?? 100_000);
const serverCount = Number(process.env['BENCH_SERVERS'] ?? 20_000);
/** Both dialects in one run (needs BENCH_DATABASE_URL), with PostgreSQL/SQLite ratios. */
const compare = process.env['BENCH_COMPARE'] === '1';
/**
 * Another checkout of this project (its path), e.g. the commit before a change: its build serves the same
 * database beside this one and every round measures both, so a noisy machine moves both alike.
 */
const baseline = process.env['BENCH_BASELINE'];

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const pin = process.env['BENCH_PIN'] !== '0' && availableParallelism() >= 2 && hasTaskset();

function start(script: string, env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    // The service runs compiled (bench/server.mjs imports dist/); the bare server is tiny TypeScript.
    const node = [process.execPath, ...(script.endsWith('.ts') ? ['--import', 'tsx'] : []), script];
    const [command, ...args] = pin ? ['taskset', '-c', '0', ...node] : node;
    const child = spawn(command!, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (message: { port: number }) => resolve({ child, port: message.port }));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  child.removeAllListeners('exit');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

interface Measure {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Server CPU time per request, µs: steadier than req/s when other work shares the machine. */
  cpuPerRequest: number;
}

function cpuOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (message: { cpu: NodeJS.CpuUsage }) =>
      resolve(message.cpu.user + message.cpu.system),
    );
    child.send('cpu');
  });
}

/** What autocannon sends for one endpoint on one service. */
interface Target {
  url: string;
  headers: Record<string, string>;
  /** The write mix: a sequence per connection pass. */
  requests?: autocannon.Request[];
}

const options = (target: Target, seconds: number): autocannon.Options => ({
  url: target.url,
  connections,
  duration: seconds,
  pipelining: 1,
  headers: target.headers,
  ...(target.requests ? { requests: target.requests } : {}),
});

/** Load so the JIT, the garbage collector and the caches settle before measured runs. */
async function warmUp(target: Target, seconds = 2): Promise<void> {
  await autocannon(options(target, seconds));
}

async function load(target: Target, server: ChildProcess, status = 200): Promise<Measure> {
  const before = await cpuOf(server);
  const result = await autocannon(options(target, duration));
  const cpu = (await cpuOf(server)) - before;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    // A redirect endpoint answers 3xx by design (autocannon does not follow it).
    errors: result.errors + result.non2xx - (status >= 300 && status < 400 ? result['3xx'] : 0),
    cpuPerRequest: cpu / Math.max(1, result.requests.total),
  };
}

interface Seeded {
  targets: Record<string, string>;
  slots: SeededCallers['slots'];
}

async function seed(databaseUrl: string, dataDir: string): Promise<Seeded> {
  const database = openDatabase({ databaseUrl, dataDir, sqliteSynchronous: 'FULL' });
  try {
    await migrateToLatest(database.db, database.dialect);
    console.log(`Seeding ${userCount} users on ${database.dialect}…`);
    const seeded = await seedUsers(database.db, userCount);
    console.log(`Seeding ${resourceCount} resources…`);
    Object.assign(seeded.targets, (await seedResources(database.db, resourceCount)).targets);
    console.log(`Seeding ${serverCount} servers…`);
    Object.assign(seeded.targets, (await seedServers(database.db, serverCount, database.dialect)).targets);
    Object.assign(seeded.targets, (await seedVersions(database.db, seeded.targets['resourceId']!)).targets);
    const callers = await seedCallers(database.db, {
      resourceId: seeded.targets['resourceId']!,
      profileUserId: seeded.targets['userId']!,
      slots: 2 * connections,
    });
    Object.assign(seeded.targets, callers.targets);
    // Fresh statistics, as a running database has them (PostgreSQL plans the joins from them).
    if (database.dialect === 'postgres') await sql`analyze`.execute(database.db);
    return { targets: seeded.targets, slots: callers.slots };
  } finally {
    await database.destroy();
  }
}

interface Side {
  label: string;
  child: ChildProcess;
  port: number;
  seeded: Seeded;
  /** BENCH_BASELINE: the other build's service on the same database. */
  baseline?: true;
}

const fill = (path: string, values: Record<string, string>) =>
  path.replace(/:(\w+)/g, (_, key: string) => values[key] ?? `:${key}`);

function targetFor(endpoint: BenchEndpoint, side: Side): Target {
  const base = `http://127.0.0.1:${side.port}`;
  const keyHeader: Record<string, string> = endpoint.auth
    ? { 'x-api-key': side.seeded.targets['apiKey']! }
    : {};
  const target: Target = {
    url: `${base}${fill(endpoint.path, side.seeded.targets)}`,
    headers: { ...headers, ...keyHeader },
  };
  if (endpoint.mix === undefined) return target;
  // Each pass of a connection (autocannon resets the context after the last request) takes the next slot.
  const { slots } = side.seeded;
  let next = 0;
  target.requests = endpoint.mix.map((step, index) => ({
    method: step.method,
    setupRequest: (request: autocannon.Request, context: object): autocannon.Request => {
      const state = context as { slot?: number };
      if (index === 0 || state.slot === undefined) state.slot = next++ % slots.length;
      const slot = slots[state.slot]!;
      return {
        ...request,
        method: step.method,
        path: fill(step.path, slot),
        headers: { ...request.headers, 'x-api-key': slot.key },
      };
    },
  }));
  return target;
}

/** One request as the first connection would send it: the body the bare server answers, and a status check. */
async function sample(endpoint: BenchEndpoint, side: Side): Promise<{ body: Buffer; contentType: string }> {
  const target = targetFor(endpoint, side);
  const steps = endpoint.mix
    ? endpoint.mix.map((step) => ({
        method: step.method,
        url: `http://127.0.0.1:${side.port}${fill(step.path, side.seeded.slots[0]!)}`,
        headers: { 'x-api-key': side.seeded.slots[0]!.key },
      }))
    : [{ method: 'GET', url: target.url, headers: target.headers }];
  let first: { body: Buffer; contentType: string } | undefined;
  for (const step of steps) {
    const response = await fetch(step.url, {
      method: step.method,
      headers: step.headers,
      redirect: 'manual',
    });
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status !== (endpoint.status ?? 200))
      throw new Error(`${endpoint.name} on ${side.label}: ${response.status} ${body.toString()}`);
    first ??= { body, contentType: response.headers.get('content-type') ?? 'application/json' };
  }
  return first!;
}

interface Result {
  endpoint: BenchEndpoint;
  body: number;
  /** Per side: the median round (by ratio to bare), every round's ratio, and errors over all rounds. */
  sides: Array<{ app: Measure; bare: Measure; ratio: number; ratios: number[]; errors: number }>;
}

async function measure(endpoint: BenchEndpoint, sides: Side[]): Promise<Result> {
  const targets = sides.map((side) => targetFor(endpoint, side));
  const first = await sample(endpoint, sides[0]!);
  for (const side of sides.slice(1)) await sample(endpoint, side);
  const bare = await start('bench/bare-server.ts', {
    BARE_BODY: first.body.toString('base64'),
    BARE_CONTENT_TYPE: first.contentType,
  });
  const bareTarget: Target = { url: `http://127.0.0.1:${bare.port}/`, headers };
  await warmUp(bareTarget);
  for (const target of targets) await warmUp(target, 1);
  const runs = sides.map(() => [] as Array<{ app: Measure; bare: Measure; ratio: number }>);
  for (let round = 0; round < rounds; round++) {
    const bareResult = await load(bareTarget, bare.child);
    for (const [i, side] of sides.entries()) {
      const app = await load(targets[i]!, side.child, endpoint.status);
      runs[i]!.push({ app, bare: bareResult, ratio: app.rps / bareResult.rps });
    }
  }
  await stop(bare.child);
  return {
    endpoint,
    body: first.body.length,
    sides: runs.map((sideRuns) => ({
      ...[...sideRuns].sort((a, b) => a.ratio - b.ratio)[Math.floor(sideRuns.length / 2)]!,
      ratios: sideRuns.map((run) => run.ratio),
      errors: sideRuns.reduce((sum, run) => sum + run.app.errors, 0),
    })),
  };
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const row of rows) console.log(line(row));
}

function printSide(results: Result[], index: number, label: string): void {
  const pinned = pin ? ', server on CPU 0 and load on CPU 1' : '';
  console.log(`\n${connections} connections, ${rounds} rounds of ${duration} s, ${label}${pinned}\n`);
  const rows = results.map(({ endpoint, body, sides }) => {
    const { app, bare, ratio, ratios, errors } = sides[index]!;
    return [
      endpoint.name,
      `${body} B`,
      app.rps.toFixed(0),
      `${app.p50} / ${app.p99}`,
      bare.rps.toFixed(0),
      `${(ratio * 100).toFixed(0)}%`,
      ratios.map((r) => (r * 100).toFixed(0)).join(' / '),
      `${app.cpuPerRequest.toFixed(1)} / ${bare.cpuPerRequest.toFixed(1)}`,
      `${((bare.cpuPerRequest / app.cpuPerRequest) * 100).toFixed(0)}%`,
      endpoint.target > 0 ? `${endpoint.target * 100}% ${ratio >= endpoint.target ? 'ok' : 'MISS'}` : '',
      String(errors),
    ];
  });
  printTable(
    [
      'endpoint',
      'body',
      'req/s',
      'p50/p99 ms',
      'bare req/s',
      'of bare',
      'rounds (%)',
      'CPU µs/req app / bare',
      'of bare (CPU)',
      'target',
      'errors',
    ],
    rows,
  );
}

function printComparison(results: Result[], services: Side[]): void {
  console.log('\nPostgreSQL / SQLite, same run (median rounds)\n');
  const liteIndex = services.findIndex((side) => side.label === 'sqlite');
  const pgIndex = services.findIndex((side) => side.label === 'postgres');
  const rows = results.map(({ endpoint, sides }) => {
    const [lite, pg] = [sides[liteIndex]!, sides[pgIndex]!];
    const ratio = pg.app.rps / lite.app.rps;
    const target = endpoint.pgTarget;
    return [
      endpoint.name,
      `${lite.app.rps.toFixed(0)} / ${pg.app.rps.toFixed(0)}`,
      ratio.toFixed(2),
      `${lite.app.cpuPerRequest.toFixed(1)} / ${pg.app.cpuPerRequest.toFixed(1)}`,
      (lite.app.cpuPerRequest / pg.app.cpuPerRequest).toFixed(2),
      `${(pg.ratio * 100).toFixed(0)}%`,
      target === undefined ? '' : `${target} ${ratio >= target ? 'ok' : 'MISS'}`,
    ];
  });
  printTable(
    [
      'endpoint',
      'req/s SQLite / PG',
      'PG/SQLite',
      'CPU µs/req SQLite / PG',
      'CPU ratio',
      'PG of bare',
      'target',
    ],
    rows,
  );
}

/** BENCH_BASELINE: this build against the other, per database: req/s and CPU µs per request. */
function printBaselineComparison(results: Result[], services: Side[]): void {
  console.log('\nThis build / baseline build, same run (median rounds)\n');
  const pairs = services.flatMap((side, i) =>
    side.baseline ? [] : [{ label: side.label, mine: i, base: i + 1 }],
  );
  const rows = results.flatMap(({ endpoint, sides }) =>
    pairs.map(({ label, mine, base }) => {
      const [a, b] = [sides[mine]!.app, sides[base]!.app];
      return [
        endpoint.name,
        label,
        `${b.rps.toFixed(0)} → ${a.rps.toFixed(0)}`,
        (a.rps / b.rps).toFixed(2),
        `${b.cpuPerRequest.toFixed(1)} → ${a.cpuPerRequest.toFixed(1)}`,
        (a.cpuPerRequest / b.cpuPerRequest).toFixed(2),
      ];
    }),
  );
  printTable(['endpoint', 'database', 'req/s base → this', 'ratio', 'CPU µs/req base → this', 'ratio'], rows);
}

async function main(): Promise<void> {
  // The load generator (autocannon, in this process: all its threads) on CPU 1; servers start on CPU 0.
  if (pin) execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
  // Measure what `npm start` runs: the compiled build, brought up to date first.
  execFileSync(process.execPath, ['scripts/ensure-build.mjs'], { stdio: 'inherit' });
  if (baseline !== undefined) {
    execFileSync(process.execPath, ['scripts/ensure-build.mjs'], { stdio: 'inherit', cwd: baseline });
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'marketplace-bench-'));
  const pgUrl = process.env['BENCH_DATABASE_URL'];
  const sqliteUrl = `sqlite:${join(dataDir, 'bench.db')}`;
  if (compare && pgUrl === undefined) throw new Error('BENCH_COMPARE needs BENCH_DATABASE_URL');
  const urls = compare ? [sqliteUrl, pgUrl!] : [pgUrl ?? sqliteUrl];
  const sides: Side[] = [];
  try {
    for (const databaseUrl of urls) {
      const seeded = await seed(databaseUrl, dataDir);
      const service = await start('bench/server.mjs', {
        DATA_DIR: dataDir,
        DATABASE_URL: databaseUrl,
        PORT: '0',
        SECRET: 'bench-secret-'.padEnd(40, 'x'),
      });
      const label = databaseUrl.split(':')[0]!;
      sides.push({ label, ...service, seeded });
      if (baseline !== undefined) {
        // The other build on the same database (no schema change between them is assumed), measured in turn.
        const other = await start(join(baseline, 'bench/server.mjs'), {
          DATA_DIR: dataDir,
          DATABASE_URL: databaseUrl,
          PORT: '0',
          SECRET: 'bench-secret-'.padEnd(40, 'x'),
        });
        sides.push({ label: `${label} baseline`, ...other, seeded, baseline: true });
      }
    }
    const endpoints = ENDPOINTS.filter(
      (endpoint) => only === undefined || only.some((part) => endpoint.name.includes(part)),
    );
    // Every path once before any measurement, so the first endpoint does not pay for the start's leftovers.
    for (const endpoint of endpoints) {
      for (const side of sides) {
        await sample(endpoint, side);
        await warmUp(targetFor(endpoint, side));
      }
    }
    const results: Result[] = [];
    for (const endpoint of endpoints) results.push(await measure(endpoint, sides));
    for (const [i, side] of sides.entries()) printSide(results, i, side.label);
    if (compare) printComparison(results, sides);
    if (baseline !== undefined) printBaselineComparison(results, sides);
  } finally {
    for (const side of sides) await stop(side.child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
// Heartbeat ingest, GET /servers/:id/stats and the history jobs, at a small scale (1,000 reporting servers);
// `npm run bench:servers` runs the full 10,000. BENCH_ONLY without "servers" skips it.
if (only === undefined || only.some((part) => 'servers'.includes(part))) {
  await benchServers({
    servers: 1_000,
    hours: 2,
    rollupDays: 30,
    rollupServers: 200,
    rounds,
    duration,
    connections,
    ...(process.env['BENCH_DATABASE_URL'] ? { databaseUrl: process.env['BENCH_DATABASE_URL'] } : {}),
  });
}
