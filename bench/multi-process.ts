// `tsx bench/multi-process.ts`: several service processes on ONE PostgreSQL database (issue 18). Seeds a data set
// (bench/seed.ts) into a database it creates and drops, then:
//   1. CPU per request: an anonymous read mix (profiles, a resource and a server by slug, a download, both list
//      pages) over 1 process, then over 3 processes (the load split evenly), rounds alternating, all of them
//      pinned to CPU 0 and the load generator to CPU 1 when `taskset` is available. Reported: server CPU µs and
//      SELECT statements (the change fence included) per request, per process.
//   2. Stale reads: with the read mix running on every process, writes through process 0 (a profile's bio, a
//      resource's name, the resource suspended and lifted again), each followed — after its response — by reads
//      of the same object (and the list page, and a download) on every other process. A read that shows anything
//      older than the write just acknowledged is stale; 0 is expected.
// Environment: BENCH_PG_URL (the server, default the local one), BENCH_PROCESSES (default 3), BENCH_DURATION (s,
// default 5), BENCH_ROUNDS (default 3; the median round is reported), BENCH_CONNECTIONS (default 48, split over
// the processes), BENCH_WRITES (stale-check iterations, default 200), BENCH_USERS / BENCH_RESOURCES /
// BENCH_SERVERS (default 10,000 / 20,000 / 5,000), BENCH_MIX=health (a control: GET /health only, no database),
// BENCH_DIST (the compiled build to run, default ./dist: point it at another build to compare), BENCH_PIN
// (default 1), BENCH_RATE (requests per second sent to EACH process, default 0 = as fast as they answer). With a
// rate, one process and three are compared at the same load per process, below saturation: the cost of the
// change signal shows without the cost of three processes sharing cores (on a 2-core machine three saturated
// processes must time-share, which alone raised CPU per request 2.37× in a no-database control run).
// BENCH_CONTROL=separate (with BENCH_RATE): a third configuration in every round, the same number of processes at
// the same rate but each on its own copy of the database (CREATE DATABASE … TEMPLATE): the machine is as busy as
// with one shared database, so shared / separate is what sharing one database costs (the change signal moving
// for other processes' work), apart from what sharing two cores costs.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import pg from 'pg';
import { digest, displayPrefix, newApiKey } from '../src/core/auth/credentials.js';
import { openDatabase } from '../src/core/db/database.js';
import { migrateToLatest } from '../src/core/db/migrator.js';
import { newId } from '../src/core/ids.js';
import { seedResources, seedServers, seedUsers, seedVersions } from './seed.js';

const pgServer = process.env['BENCH_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const processes = Math.max(2, Number(process.env['BENCH_PROCESSES'] ?? 3));
const duration = Number(process.env['BENCH_DURATION'] ?? 5);
const rounds = Math.max(1, Number(process.env['BENCH_ROUNDS'] ?? 3));
const connections = Number(process.env['BENCH_CONNECTIONS'] ?? 48);
const writes = Number(process.env['BENCH_WRITES'] ?? 200);
const userCount = Number(process.env['BENCH_USERS'] ?? 10_000);
const resourceCount = Number(process.env['BENCH_RESOURCES'] ?? 20_000);
const serverCount = Number(process.env['BENCH_SERVERS'] ?? 5_000);
const dist = resolve(process.env['BENCH_DIST'] ?? 'dist');
const ratePerProcess = Number(process.env['BENCH_RATE'] ?? 0);
const separateControl = process.env['BENCH_CONTROL'] === 'separate';

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const pin = process.env['BENCH_PIN'] !== '0' && availableParallelism() >= 2 && hasTaskset();

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: pgServer });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Data: the bench seed, plus API keys for a writer (a user whose profile is read), the owner of a listed
// resource, and a moderator.

interface Targets {
  userId: string;
  username: string;
  resourceSlug: string;
  serverSlug: string;
  download: string;
  /** A resource on the first page of GET /resources, its owner's key, and a file of it. */
  listed: { id: string; slug: string; download: string };
  keys: { user: string; owner: string; moderator: string };
}

async function insertKey(
  db: ReturnType<typeof openDatabase>['db'],
  userId: string,
  scopes = 'read write upload',
): Promise<string> {
  const key = newApiKey();
  await db
    .insertInto('api_keys')
    .values({
      id: newId(),
      user_id: userId,
      name: 'bench',
      prefix: displayPrefix(key),
      key_hash: digest(key),
      created_at: new Date().toISOString(),
      last_used_at: null,
      expires_at: null,
      revoked_at: null,
      scopes,
      team_id: null,
      last_used_ip: null,
    })
    .execute();
  return key;
}

async function seed(databaseUrl: string): Promise<Targets> {
  const database = openDatabase({ databaseUrl, dataDir: tmpdir(), sqliteSynchronous: 'FULL' });
  const { db } = database;
  try {
    await migrateToLatest(db, database.dialect);
    console.log(`Seeding ${userCount} users, ${resourceCount} resources, ${serverCount} servers…`);
    const users = (await seedUsers(db, userCount)).targets;
    const resources = (await seedResources(db, resourceCount)).targets;
    const servers = (await seedServers(db, serverCount, database.dialect)).targets;
    const version = (await seedVersions(db, resources['resourceId']!)).targets;
    // The newest APPROVED user-owned resource: on the first page of GET /resources (sorted by date).
    const listed = await db
      .selectFrom('resources')
      .select(['id', 'slug', 'owner_id'])
      .where('status', '=', 'APPROVED')
      .where('owner_type', '=', 'USER')
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    const listedVersion = (await seedVersions(db, listed.id)).targets;
    const moderator = await db
      .selectFrom('users')
      .select('id')
      .where('id', 'not in', [users['userId']!, listed.owner_id])
      .limit(1)
      .executeTakeFirstOrThrow();
    await db.updateTable('users').set({ role: 'MODERATOR' }).where('id', '=', moderator.id).execute();
    const keys = {
      user: await insertKey(db, users['userId']!),
      owner: await insertKey(db, listed.owner_id),
      moderator: await insertKey(db, moderator.id, 'read write upload moderate'),
    };
    await sql`analyze`.execute(db);
    const downloadPath = (resourceId: string, v: Record<string, string>) =>
      `/resources/${resourceId}/versions/${v['versionId']}/download/${v['fileId']}`;
    return {
      userId: users['userId']!,
      username: users['username']!,
      resourceSlug: resources['resourceSlug']!,
      serverSlug: servers['serverSlug']!,
      download: downloadPath(resources['resourceId']!, version),
      listed: { id: listed.id, slug: listed.slug, download: downloadPath(listed.id, listedVersion) },
      keys,
    };
  } finally {
    await database.destroy();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Service processes: the compiled build in BENCH_DIST, as bench/server.mjs runs it.

interface Service {
  child: ChildProcess;
  base: string;
}

const SERVER_CODE = `
const { buildApp } = await import(process.env.BENCH_APP_URL);
const { loadConfig } = await import(process.env.BENCH_CONFIG_URL);
const config = loadConfig({ ...process.env, RATE_LIMIT: 'off', LOG_LEVEL: 'warn' });
const app = await buildApp({ config });
await app.listen({ port: 0, host: '127.0.0.1' });
process.send({ port: app.server.address().port });
process.on('message', (message) => {
  if (message === 'cpu') process.send({ cpu: process.cpuUsage() });
});
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
`;

function startService(databaseUrl: string, dataDir: string): Promise<Service> {
  const node = [process.execPath, '--input-type=module', '-e', SERVER_CODE];
  const [command, ...args] = pin ? ['taskset', '-c', '0', ...node] : node;
  const child = spawn(command!, args, {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      SECRET: 'bench-secret-'.padEnd(40, 'x'),
      MIGRATE: 'false',
      // The statement counts of /metrics: how many queries (fences included) a request costs.
      METRICS: 'on',
      BENCH_APP_URL: pathToFileURL(join(dist, 'app.js')).href,
      BENCH_CONFIG_URL: pathToFileURL(join(dist, 'config.js')).href,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolvePort, reject) => {
    child.once('message', (message: { port: number }) =>
      resolvePort({ child, base: `http://127.0.0.1:${message.port}` }),
    );
    child.once('exit', (code) => reject(new Error(`service exited with ${code}`)));
  });
}

async function stopService(service: Service): Promise<void> {
  service.child.removeAllListeners('exit');
  const exited = new Promise((done) => service.child.once('exit', done));
  service.child.kill('SIGTERM');
  await exited;
}

function cpuOf(service: Service): Promise<number> {
  return new Promise((done) => {
    service.child.once('message', (message: { cpu: NodeJS.CpuUsage }) =>
      done(message.cpu.user + message.cpu.system),
    );
    service.child.send('cpu');
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The read mix and its measurement.

function readMix(targets: Targets): string[] {
  // A control: the same split over processes for a route that touches no database at all.
  if (process.env['BENCH_MIX'] === 'health') return ['/health'];
  return [
    `/users/${targets.userId}`,
    `/users/username/${targets.username}`,
    `/resources/slug/${targets.resourceSlug}`,
    `/servers/slug/${targets.serverSlug}`,
    targets.download,
    '/resources',
    '/servers',
  ];
}

/** An autocannon run; at runtime the returned promise is its tracker, which can be stopped early. */
function drive(service: Service, paths: string[], seconds: number, conns: number) {
  return autocannon({
    url: service.base,
    connections: conns,
    duration: seconds,
    requests: paths.map((path) => ({ method: 'GET', path })),
    ...(ratePerProcess > 0 ? { overallRate: ratePerProcess } : {}),
  }) as Promise<autocannon.Result> & { stop(): void };
}

/** SELECT statements the service has run so far (the fence counts as one), from its /metrics. */
async function selectsOf(service: Service): Promise<number> {
  const text = await (await fetch(`${service.base}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('db_query_duration_seconds_count{operation="select"}'));
  return Number(line?.split(' ').pop() ?? 0);
}

interface Round {
  /** Server CPU µs per request, per process. */
  perProcess: number[];
  /** SELECTs per request, per process. */
  selects: number[];
  /** Requests per second, per process. */
  rates: number[];
  requests: number;
  rps: number;
  errors: number;
}

async function measureRound(services: Service[], paths: string[]): Promise<Round> {
  const selectsBefore = await Promise.all(services.map(selectsOf));
  const before = await Promise.all(services.map(cpuOf));
  // At a fixed rate each process gets the same connections whether it runs alone or beside the others, so that
  // both sides see requests arrive alike (how many share one change fence depends on it).
  const split = ratePerProcess > 0 ? processes : services.length;
  const per = Math.max(1, Math.round(connections / split));
  const results = await Promise.all(services.map((service) => drive(service, paths, duration, per)));
  const after = await Promise.all(services.map(cpuOf));
  const selectsAfter = await Promise.all(services.map(selectsOf));
  const count = (i: number) => Math.max(1, results[i]!.requests.total);
  const perProcess = services.map((_, i) => (after[i]! - before[i]!) / count(i));
  const selects = services.map((_, i) => (selectsAfter[i]! - selectsBefore[i]!) / count(i));
  const requests = results.reduce((sum, r) => sum + r.requests.total, 0);
  return {
    perProcess,
    selects,
    rates: results.map((result) => result.requests.total / duration),
    requests,
    rps: requests / duration,
    // The download answers 302 by design.
    errors: results.reduce((sum, r) => sum + r.errors + r.non2xx - r['3xx'], 0),
  };
}

/** The median round by mean CPU per request. */
function median(all: Round[]): Round {
  const mean = (round: Round) => round.perProcess.reduce((a, b) => a + b, 0) / round.perProcess.length;
  return [...all].sort((x, y) => mean(x) - mean(y))[Math.floor(all.length / 2)]!;
}

/**
 * Rounds alternate between the first process alone and all of them, after every process was warmed up alike: the
 * shared machine's noise and the JIT's warm-up then weigh on both sides equally.
 */
async function measure(
  services: Service[],
  paths: string[],
  control?: Service[],
): Promise<{ single: Round; multi: Round; separate?: Round }> {
  for (const service of [...services, ...(control ?? []).slice(1)])
    await drive(service, paths, 3, connections);
  const singles: Round[] = [];
  const multis: Round[] = [];
  const separates: Round[] = [];
  for (let round = 0; round < rounds; round++) {
    singles.push(await measureRound(services.slice(0, 1), paths));
    multis.push(await measureRound(services, paths));
    if (control !== undefined) separates.push(await measureRound(control, paths));
  }
  const show = (all: Round[]) =>
    all.map((r) => (r.perProcess.reduce((a, b) => a + b, 0) / r.perProcess.length).toFixed(1)).join(' / ');
  console.log(`  rounds, mean CPU µs/req: 1 process ${show(singles)}; ${services.length} ${show(multis)}`);
  if (control !== undefined)
    console.log(`  rounds, ${control.length} on separate databases: ${show(separates)}`);
  return {
    single: median(singles),
    multi: median(multis),
    ...(control !== undefined ? { separate: median(separates) } : {}),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Stale reads: write through process 0, read everywhere else right after the response.

async function call(
  base: string,
  method: string,
  path: string,
  key?: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${base}${path}`, {
    method,
    redirect: 'manual',
    headers: {
      ...(key ? { 'x-api-key': key } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, json: text.startsWith('{') ? JSON.parse(text) : undefined };
}

async function expectOk(answer: Promise<{ status: number; json: unknown }>, what: string): Promise<void> {
  const { status, json } = await answer;
  if (status >= 400) throw new Error(`${what}: ${status} ${JSON.stringify(json)}`);
}

interface StaleCount {
  checks: number;
  stale: number;
  examples: string[];
}

async function staleReads(services: Service[], targets: Targets, paths: string[]): Promise<StaleCount> {
  const [writer, ...readers] = services as [Service, ...Service[]];
  const { keys, listed } = targets;
  const count: StaleCount = { checks: 0, stale: 0, examples: [] };
  const check = (ok: boolean, what: string) => {
    count.checks += 1;
    if (ok) return;
    count.stale += 1;
    if (count.examples.length < 5) count.examples.push(what);
  };
  // Every process under the read mix meanwhile, so answers are kept and fences shared.
  const load = services.map((service) =>
    drive(service, paths, 3600, Math.max(1, Math.round(connections / services.length))),
  );
  const started = Date.now();
  for (let i = 1; i <= writes; i++) {
    const step = i % 3;
    if (step === 1) {
      const bio = `stale check ${i}`;
      await expectOk(call(writer.base, 'PATCH', '/users/me', keys.user, { bio }), 'PATCH /users/me');
      const reads = await Promise.all(
        readers.flatMap((r) => [
          call(r.base, 'GET', `/users/${targets.userId}`),
          call(r.base, 'GET', `/users/username/${targets.username}`),
        ]),
      );
      for (const read of reads) check((read.json as { bio?: string } | undefined)?.bio === bio, `bio ${i}`);
    } else if (step === 2) {
      const name = `Renamed ${i}`;
      await expectOk(call(writer.base, 'PATCH', `/resources/${listed.id}`, keys.owner, { name }), 'PATCH');
      const reads = await Promise.all(
        readers.flatMap((r) => [
          call(r.base, 'GET', `/resources/slug/${listed.slug}`),
          call(r.base, 'GET', '/resources'),
        ]),
      );
      for (const [j, read] of reads.entries()) {
        const json = (read.json ?? {}) as { name?: string; resources?: Array<{ id: string; name: string }> };
        const shown = j % 2 === 0 ? json.name : json.resources?.find((r) => r.id === listed.id)?.name;
        check(shown === name, `resource name ${i} (${j % 2 === 0 ? 'by slug' : 'list'}: ${shown})`);
      }
    } else {
      // Suspended: 404 by slug, gone from the list, no download; lifted: all back.
      for (const action of ['SUSPEND', 'UNSUSPEND'] as const) {
        await expectOk(
          call(writer.base, 'PATCH', `/resources/moderation/${listed.id}/moderate`, keys.moderator, {
            action,
            ...(action === 'SUSPEND' ? { reason: 'bench' } : {}),
          }),
          action,
        );
        const visible = action === 'UNSUSPEND';
        const reads = await Promise.all(
          readers.flatMap((r) => [
            call(r.base, 'GET', `/resources/slug/${listed.slug}`),
            call(r.base, 'GET', listed.download),
            call(r.base, 'GET', '/resources'),
          ]),
        );
        for (const [j, read] of reads.entries()) {
          const json = (read.json ?? {}) as { resources?: Array<{ id: string }> };
          const shown = [
            read.status === 200,
            read.status === 302,
            json.resources?.some((r) => r.id === listed.id) === true,
          ][j % 3];
          check(shown === visible, `${action} ${i}: ${['by slug', 'download', 'list'][j % 3]}`);
        }
      }
    }
  }
  const seconds = (Date.now() - started) / 1000;
  console.log(`  ${writes} writes in ${seconds.toFixed(1)} s under the read mix`);
  for (const instance of load) instance.stop();
  const done = await Promise.all(load);
  const served = done.reduce((sum, result) => sum + result.requests.total, 0);
  console.log(
    `  meanwhile the read mix: ${(served / seconds).toFixed(0)} req/s over ${services.length} processes`,
  );
  return count;
}

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  if (pin) execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
  const name = `bench_multi_${process.pid}`;
  const url = new URL(pgServer);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const dataDir = mkdtempSync(join(tmpdir(), 'marketplace-multi-'));
  await admin(`create database ${name}`);
  const services: Service[] = [];
  const copies: string[] = [];
  try {
    const targets = await seed(databaseUrl);
    const paths = readMix(targets);
    console.log(`Build: ${dist}; ${connections} connections; ${rounds} rounds of ${duration} s`);
    // Copies first: CREATE DATABASE … TEMPLATE needs the template without connections.
    const copyUrls: string[] = [];
    for (let i = 1; separateControl && i < processes; i++) {
      const copy = `${name}_copy${i}`;
      await admin(`create database ${copy} template ${name}`);
      copies.push(copy);
      const copyUrl = new URL(pgServer);
      copyUrl.pathname = `/${copy}`;
      copyUrls.push(copyUrl.toString());
    }
    for (let i = 0; i < processes; i++) services.push(await startService(databaseUrl, dataDir));
    for (const path of paths) await expectOk(call(services[0]!.base, 'GET', path), path);
    // The stale-read check below writes through process 0 and reads on the shared-database processes only.
    let control: Service[] | undefined;
    if (separateControl) {
      control = [services[0]!];
      for (const copyUrl of copyUrls) {
        const service = await startService(copyUrl, dataDir);
        services.push(service);
        control.push(service);
      }
    }
    const shared = services.slice(0, processes);
    const { single, multi, separate } = await measure(shared, paths, control);
    const singleCpu = single.perProcess[0]!;
    const multiCpu = multi.perProcess.reduce((a, b) => a + b, 0) / multi.perProcess.length;
    console.log('\nRead mix (anonymous), server CPU µs per request');
    console.log(
      `  1 process:   ${singleCpu.toFixed(1)} µs/req, ${single.rps.toFixed(0)} req/s, errors ${single.errors}`,
    );
    console.log(
      `  ${processes} processes: ${multi.perProcess.map((v) => v.toFixed(1)).join(' / ')} µs/req ` +
        `(mean ${multiCpu.toFixed(1)}), ${multi.rps.toFixed(0)} req/s in all, errors ${multi.errors}`,
    );
    const fmt = (values: number[]) => values.map((v) => v.toFixed(2)).join(' / ');
    console.log(
      `  SELECTs per request: 1 process ${fmt(single.selects)}; ${processes} processes ${fmt(multi.selects)}`,
    );
    console.log(
      `  req/s per process: 1 process ${fmt(single.rates)}; ${processes} processes ${fmt(multi.rates)}`,
    );
    console.log(`  ratio ${processes} / 1: ${(multiCpu / singleCpu).toFixed(2)} (target ≤ 1.3)`);
    if (separate !== undefined) {
      const separateCpu = separate.perProcess.reduce((a, b) => a + b, 0) / separate.perProcess.length;
      console.log(
        `  ${processes} on separate databases: ${separate.perProcess.map((v) => v.toFixed(1)).join(' / ')} µs/req ` +
          `(mean ${separateCpu.toFixed(1)}); SELECTs ${fmt(separate.selects)}; ` +
          `shared / separate: ${(multiCpu / separateCpu).toFixed(2)}`,
      );
    }
    console.log('\nStale reads (writes through process 0, reads on the others right after each response)');
    const stale = await staleReads(shared, targets, paths);
    console.log(
      `  ${stale.checks} reads checked, ${stale.stale} stale${stale.examples.length ? `: ${stale.examples.join('; ')}` : ''}`,
    );
  } finally {
    for (const service of services) await stopService(service);
    for (const copy of copies) await admin(`drop database if exists ${copy} with (force)`);
    await admin(`drop database if exists ${name} with (force)`);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
