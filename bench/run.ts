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
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { openDatabase } from '../src/core/db/database.js';
import { migrateToLatest } from '../src/core/db/migrator.js';
import { ENDPOINTS } from './endpoints.js';
import { seedResources, seedServers, seedUsers, seedVersions } from './seed.js';
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

/** Load so the JIT, the garbage collector and the caches settle before measured runs. */
async function warmUp(url: string, seconds = 2): Promise<void> {
  await autocannon({ url, connections, duration: seconds, headers });
}

async function load(url: string, server: ChildProcess, status = 200): Promise<Measure> {
  const before = await cpuOf(server);
  const result = await autocannon({ url, connections, duration, pipelining: 1, headers });
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

async function main(): Promise<void> {
  // The load generator (autocannon, in this process: all its threads) on CPU 1; servers start on CPU 0.
  if (pin) execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
  // Measure what `npm start` runs: the compiled build, brought up to date first.
  execFileSync(process.execPath, ['scripts/ensure-build.mjs'], { stdio: 'inherit' });
  const dataDir = mkdtempSync(join(tmpdir(), 'marketplace-bench-'));
  const databaseUrl = process.env['BENCH_DATABASE_URL'] ?? `sqlite:${join(dataDir, 'bench.db')}`;
  const database = openDatabase({ databaseUrl, dataDir, sqliteSynchronous: 'FULL' });
  await migrateToLatest(database.db, database.dialect);
  console.log(`Seeding ${userCount} users on ${database.dialect}…`);
  const seeded = await seedUsers(database.db, userCount);
  console.log(`Seeding ${resourceCount} resources…`);
  Object.assign(seeded.targets, (await seedResources(database.db, resourceCount)).targets);
  console.log(`Seeding ${serverCount} servers…`);
  Object.assign(seeded.targets, (await seedServers(database.db, serverCount, database.dialect)).targets);
  Object.assign(seeded.targets, (await seedVersions(database.db, seeded.targets['resourceId']!)).targets);
  await database.destroy();

  const env = {
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    PORT: '0',
    SECRET: 'bench-secret-'.padEnd(40, 'x'),
  };
  const service = await start('bench/server.mjs', env);
  const rows: string[][] = [];
  try {
    const targets = ENDPOINTS.filter(
      (endpoint) => only === undefined || only.some((part) => endpoint.name.includes(part)),
    ).map((endpoint) => ({
      endpoint,
      url: `http://127.0.0.1:${service.port}${endpoint.path.replace(
        /:(\w+)/g,
        (_, key: string) => seeded.targets[key] ?? `:${key}`,
      )}`,
    }));
    // Every path once before any measurement, so the first endpoint does not pay for the start's leftovers.
    for (const { url } of targets) await warmUp(url);
    for (const { endpoint, url } of targets) {
      const sample = await fetch(url, { redirect: 'manual' });
      const body = Buffer.from(await sample.arrayBuffer());
      if (sample.status !== (endpoint.status ?? 200))
        throw new Error(`${endpoint.name}: ${sample.status} ${body.toString()}`);
      const bare = await start('bench/bare-server.ts', {
        BARE_BODY: body.toString('base64'),
        BARE_CONTENT_TYPE: sample.headers.get('content-type') ?? 'application/json',
      });
      const bareUrl = `http://127.0.0.1:${bare.port}/`;
      await warmUp(bareUrl);
      await warmUp(url, 1);
      const runs: Array<{ app: Measure; bare: Measure; ratio: number }> = [];
      for (let round = 0; round < rounds; round++) {
        const bareResult = await load(bareUrl, bare.child);
        const appResult = await load(url, service.child, endpoint.status);
        runs.push({ app: appResult, bare: bareResult, ratio: appResult.rps / bareResult.rps });
      }
      await stop(bare.child);
      const {
        app: appResult,
        bare: bareResult,
        ratio,
      } = [...runs].sort((a, b) => a.ratio - b.ratio)[Math.floor(runs.length / 2)]!;
      const cpuRatio = bareResult.cpuPerRequest / appResult.cpuPerRequest;
      rows.push([
        endpoint.name,
        `${body.length} B`,
        appResult.rps.toFixed(0),
        `${appResult.p50} / ${appResult.p99}`,
        bareResult.rps.toFixed(0),
        `${(ratio * 100).toFixed(0)}%`,
        runs.map((run) => (run.ratio * 100).toFixed(0)).join(' / '),
        `${appResult.cpuPerRequest.toFixed(1)} / ${bareResult.cpuPerRequest.toFixed(1)}`,
        `${(cpuRatio * 100).toFixed(0)}%`,
        endpoint.target > 0 ? `${endpoint.target * 100}% ${ratio >= endpoint.target ? 'ok' : 'MISS'}` : '',
        String(runs.reduce((sum, run) => sum + run.app.errors, 0)),
      ]);
    }
  } finally {
    await stop(service.child);
    rmSync(dataDir, { recursive: true, force: true });
  }
  const header = [
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
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ');
  const pinned = pin ? ', server on CPU 0 and load on CPU 1' : '';
  console.log(
    `\n${connections} connections, ${rounds} rounds of ${duration} s, ${databaseUrl.split(':')[0]}${pinned}\n`,
  );
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const row of rows) console.log(line(row));
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
