// `npm run bench:events [-- pg | postgres://…]`: what events and webhooks cost (issue 13). SQLite by default; `pg`
// uses postgres://postgres@127.0.0.1:5432/postgres, and every server gets a database of its own, dropped after.
// Every server is the real process (`node --import tsx src/server.ts`, jobs and the webhook worker running,
// rate limits off, warn-level logs), pinned to CPU 0 while this process (load, receiver) runs on CPU 1.
// 1. Write cost: PATCH /resources/:id (a new name: resource.updated) and POST /users/:userId/follow (a new edge:
//    user.followed), measured with autocannon against the tree before events (a git worktree of BENCH_BEFORE,
//    default 0b5f6f5) and the current tree, alternating before/after BENCH_ROUNDS times (default 2): req/s,
//    latency and the server's CPU time per request (/proc/<pid>/stat; steadier than req/s on a shared machine).
// 2. Delivery throughput: BENCH_EVENTS (default 1000) writes as fast as 16 clients go, to 1 webhook, and
//    BENCH_FANOUT_EVENTS (default 50) to 100 webhooks, with WEBHOOK_CONCURRENCY 8 and 32; timed from the first
//    write to the last delivery at a node:http receiver on 127.0.0.1 answering 204 at once.
// 3. Delay from commit to delivery: BENCH_RATES writes/s (default 10 and 50) for BENCH_RATE_SECONDS (default 20)
//    each to one webhook; delay = arrival at the receiver − the write's response (and − the event's createdAt).
// Before parts 2 and 3 measure, each server renames and delivers a while, so its code paths are compiled.
// BENCH_PARTS (default cost,throughput,delay) picks parts. Every phase has a deadline: a bench never hangs.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { systemClock } from '../src/core/clock.js';
import { openDatabase } from '../src/core/db/database.js';
import { newId } from '../src/core/ids.js';
import { createApiKeysService } from '../src/modules/api-keys/api-keys.service.js';
import { seedUsers } from './seed.js';

const MAIN = resolve('.');
const argument = process.argv[2];
const pgUrl = argument === 'pg' ? 'postgres://postgres@127.0.0.1:5432/postgres' : argument;
const dialect = pgUrl?.startsWith('postgres') ? 'postgres' : 'sqlite';
const parts = (process.env['BENCH_PARTS'] ?? 'cost,throughput,delay').split(',');
const number = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const duration = number('BENCH_DURATION', 5);
const rounds = number('BENCH_ROUNDS', 2);
const connections = number('BENCH_CONNECTIONS', 50);
const events = number('BENCH_EVENTS', 1000);
const fanOutEvents = number('BENCH_FANOUT_EVENTS', 50);
const rates = (process.env['BENCH_RATES'] ?? '10,50').split(',').map(Number);
const rateSeconds = number('BENCH_RATE_SECONDS', 20);
const beforeCommit = process.env['BENCH_BEFORE'] ?? '0b5f6f5';
/** The longest any one phase (a start, a seed, a load, a wait for deliveries) may take. */
const PHASE_MS = number('BENCH_PHASE_SECONDS', 300) * 1000;
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const pin = process.env['BENCH_PIN'] !== '0' && availableParallelism() >= 2 && hasTaskset();

/** Undone in reverse order at the end, on a failure and when the whole run overstays its deadline. */
const cleanups: Array<() => Promise<void> | void> = [];
async function cleanUp(): Promise<void> {
  while (cleanups.length > 0) await Promise.resolve(cleanups.pop()!()).catch((error) => console.error(error));
}

function within<T>(what: string, work: Promise<T>, ms = PHASE_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still running after ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const load = () =>
  `load average ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')} on ${cpus().length} CPUs`;

// ---------------------------------------------------------------------------------------------------------------
// Databases and server processes

interface Store {
  url: string;
  dataDir: string;
}

async function freshStore(tag: string): Promise<Store> {
  const dataDir = mkdtempSync(join(tmpdir(), `bench-events-${tag}-`));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  if (pgUrl === undefined) return { url: `sqlite:${join(dataDir, 'bench.db')}`, dataDir };
  const name = `bench_events_${tag}_${Date.now().toString(36)}_${process.pid}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  cleanups.push(() => admin(`drop database if exists ${name} with (force)`));
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), dataDir };
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => done(port));
    });
  });
}

interface Server {
  child: ChildProcess;
  base: string;
  /** User + system CPU time of the server process so far, µs. */
  cpu(): number;
}

async function startServer(root: string, store: Store, env: Record<string, string> = {}): Promise<Server> {
  const port = await freePort();
  const node = [process.execPath, '--import', 'tsx', 'src/server.ts'];
  const [command, ...args] = pin ? ['taskset', '-c', '0', ...node] : node;
  let stderr = '';
  const child = spawn(command!, args, {
    cwd: root,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '',
      DATABASE_URL: store.url,
      DATA_DIR: store.dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      SECRET: 'bench-secret-'.padEnd(40, 'x'),
      RATE_LIMIT: 'off',
      LOG_LEVEL: 'warn',
      OUTBOUND_ALLOW_PRIVATE: 'true',
      // SQLite's default (FULL) syncs every commit; NORMAL shows the CPU-bound side.
      ...(process.env['SQLITE_SYNCHRONOUS'] ? { SQLITE_SYNCHRONOUS: process.env['SQLITE_SYNCHRONOUS'] } : {}),
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  cleanups.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(killer);
  });
  const base = `http://127.0.0.1:${port}`;
  await within(
    `server in ${root}`,
    (async () => {
      for (;;) {
        if (child.exitCode !== null) throw new Error(`server in ${root} exited: ${stderr}`);
        const up = await fetch(`${base}/health`).then(
          (response) => response.ok,
          () => false,
        );
        if (up) return;
        await sleep(100);
      }
    })(),
    60_000,
  );
  const cpu = () => {
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // Fields 14 and 15 of stat (utime, stime) are 12 and 13 after the command name.
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
  };
  return { child, base, cpu };
}

interface Seeded {
  ownerKey: string;
  resourceIds: string[];
  followerKeys: string[];
  targetIds: string[];
}

/** Users and API keys straight through Kysely (the same tables before and after events); resources through HTTP. */
async function seed(server: Server, store: Store, options: { resources: number; followers: number }) {
  const database = openDatabase({
    databaseUrl: store.url,
    dataDir: store.dataDir,
    sqliteSynchronous: 'NORMAL',
  });
  let seeded: Seeded;
  try {
    const { targets } = await seedUsers(database.db, 2000);
    const users = (await database.db.selectFrom('users').select('id').orderBy('id').execute())
      .map((user) => user.id)
      .filter((id) => id !== targets['userId']);
    const keys = createApiKeysService({ db: database.db, dialect: database.dialect, clock: systemClock });
    const keyOf = async (userId: string) => (await keys.create(userId, { name: 'bench' })).key;
    const followerKeys: string[] = [];
    for (const userId of users.slice(1, 1 + options.followers)) followerKeys.push(await keyOf(userId));
    seeded = {
      ownerKey: await keyOf(users[0]!),
      followerKeys,
      targetIds: users.slice(1 + options.followers),
      resourceIds: [],
    };
  } finally {
    await database.destroy();
  }
  for (let i = 0; i < options.resources; i++) {
    const created = await call(server, seeded.ownerKey, 'POST', '/resources', {
      name: `Bench resource ${i}`,
      slug: `bench-resource-${i}`,
      shortDescription: 'Renamed over and over',
      type: 'MOD',
    });
    seeded.resourceIds.push(created['id'] as string);
  }
  return seeded;
}

async function call(server: Server, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.base}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
}

const table = (header: string[], rows: string[][]) => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.map(line)].join('\n');
};

// ---------------------------------------------------------------------------------------------------------------
// 1. Write cost before and after events

interface Side {
  name: string;
  server: Server;
  /** One sequence per endpoint for the whole run, so no round repeats an earlier round's change. */
  next: Record<Endpoint, () => autocannon.Request>;
}

type Endpoint = 'rename' | 'follow';

/** Each request its own change: a new name, or a follow edge that did not exist (a repeat records nothing). */
function writes(seeded: Seeded, endpoint: Endpoint) {
  let n = 0;
  return (): autocannon.Request => {
    const i = n++;
    if (endpoint === 'rename') {
      return {
        method: 'PATCH',
        path: `/resources/${seeded.resourceIds[i % seeded.resourceIds.length]}`,
        headers: { 'x-api-key': seeded.ownerKey, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Bench resource renamed ${i}` }),
      };
    }
    const followers = seeded.followerKeys.length;
    const target = seeded.targetIds[Math.floor(i / followers) % seeded.targetIds.length]!;
    return {
      method: 'POST',
      path: `/users/${target}/follow`,
      headers: { 'x-api-key': seeded.followerKeys[i % followers]! },
    };
  };
}

async function measure(side: Side, endpoint: Endpoint, seconds: number) {
  const next = side.next[endpoint];
  const cpuBefore = side.server.cpu();
  const result = await within(
    `${endpoint} on ${side.name}`,
    autocannon({
      url: side.server.base,
      connections,
      duration: seconds,
      requests: [{ setupRequest: (request) => ({ ...request, ...next() }) }],
    }),
  );
  const cpu = side.server.cpu() - cpuBefore;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    cpuPerRequest: cpu / Math.max(1, result.requests.total),
  };
}

async function writeCost(): Promise<void> {
  const worktree = mkdtempSync(join(tmpdir(), 'bench-events-before-'));
  rmSync(worktree, { recursive: true });
  execFileSync('git', ['worktree', 'add', '--detach', worktree, beforeCommit], { stdio: 'ignore' });
  cleanups.push(() => {
    execFileSync('git', ['worktree', 'remove', '--force', worktree], { stdio: 'ignore' });
  });
  symlinkSync(join(MAIN, 'node_modules'), join(worktree, 'node_modules'));
  const sides: Side[] = [];
  for (const [name, root] of [
    [`before (${beforeCommit})`, worktree],
    ['after (current tree)', MAIN],
  ] as const) {
    const store = await freshStore(name.startsWith('before') ? 'before' : 'after');
    const server = await startServer(root, store);
    const seeded = await within(`seeding ${name}`, seed(server, store, { resources: 50, followers: 50 }));
    sides.push({
      name,
      server,
      next: { rename: writes(seeded, 'rename'), follow: writes(seeded, 'follow') },
    });
  }
  const rows: string[][] = [];
  const summary: string[] = [];
  for (const endpoint of ['rename', 'follow'] as const) {
    for (const side of sides) await measure(side, endpoint, 2);
    const byRound: Array<Record<string, Awaited<ReturnType<typeof measure>>>> = [];
    for (let round = 1; round <= rounds; round++) {
      const results: Record<string, Awaited<ReturnType<typeof measure>>> = {};
      for (const side of sides) {
        const result = await measure(side, endpoint, duration);
        results[side.name] = result;
        rows.push([
          endpoint === 'rename' ? 'PATCH /resources/:id' : 'POST /users/:userId/follow',
          side.name,
          String(round),
          result.rps.toFixed(0),
          `${result.p50} / ${result.p99}`,
          result.cpuPerRequest.toFixed(0),
          String(result.errors),
        ]);
      }
      byRound.push(results);
    }
    summary.push(
      `${endpoint === 'rename' ? 'PATCH /resources/:id' : 'POST /users/:userId/follow'}: ` +
        byRound
          .map((results, index) => {
            const [before, after] = sides.map((side) => results[side.name]!);
            const cpu = after!.cpuPerRequest - before!.cpuPerRequest;
            const rps = after!.rps / before!.rps - 1;
            return (
              `round ${index + 1} CPU ${cpu >= 0 ? '+' : ''}${cpu.toFixed(0)} µs/req ` +
              `(${((cpu / before!.cpuPerRequest) * 100).toFixed(0)}%), req/s ${(rps * 100).toFixed(0)}%`
            );
          })
          .join('; '),
    );
  }
  console.log(
    `\n1. Write cost, ${dialect}, ${connections} connections, ${rounds} round(s) of ${duration} s alternating ` +
      `before/after (after a 2 s warm-up each); CPU is the server process's (not PostgreSQL's); ${load()}\n`,
  );
  console.log(table(['endpoint', 'tree', 'round', 'req/s', 'p50/p99 ms', 'CPU µs/req', 'errors'], rows));
  console.log(`\nadded by events (after − before): \n${summary.join('\n')}`);
}

// ---------------------------------------------------------------------------------------------------------------
// 2 and 3. Deliveries to a local receiver

interface Arrival {
  at: number;
  webhook: string;
  event: { id: string; type: string; createdAt: string; data: { name?: string } };
}

async function startReceiver() {
  const arrivals: Arrival[] = [];
  const seen = new Set<string>();
  let onArrival = () => {};
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      response.statusCode = 204;
      response.end();
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Arrival['event'];
      const webhook = request.url ?? '';
      // At-least-once: a repeat is counted once.
      if (event.type !== 'resource.updated' || seen.has(`${webhook} ${event.id}`)) return;
      seen.add(`${webhook} ${event.id}`);
      arrivals.push({ at, webhook, event });
      onArrival();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise<void>((done) => server.close(() => done()));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    arrivals,
    /** Resolves once `count` deliveries have arrived, or after `ms` with what arrived. */
    waitFor(count: number, ms: number): Promise<void> {
      return new Promise((done) => {
        const timer = setTimeout(done, ms);
        onArrival = () => {
          if (arrivals.length < count) return;
          clearTimeout(timer);
          done();
        };
        onArrival();
      });
    },
    reset() {
      arrivals.length = 0;
      seen.clear();
    },
  };
}
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A server with one owner, 16 resources and `webhooks` USER-scope ["*"] webhooks of the owner. */
async function deliveryServer(tag: string, receiver: Receiver, webhooks: number, concurrency: number) {
  const store = await freshStore(tag);
  const server = await startServer(MAIN, store, { WEBHOOK_CONCURRENCY: String(concurrency) });
  const seeded = await within('seeding', seed(server, store, { resources: 16, followers: 0 }));
  // Seeding's resource.created events go out before any webhook exists (the fan-out polls every 250 ms).
  await sleep(1000);
  const first = await call(server, seeded.ownerKey, 'POST', '/webhooks', {
    url: `${receiver.url}/${tag}/0`,
    events: ['*'],
    scope: { kind: 'USER' },
  });
  if (webhooks > 1) {
    // POST /webhooks allows 20 per scope; the rest are copies of the first (same creator, scope and secret).
    const database = openDatabase({
      databaseUrl: store.url,
      dataDir: store.dataDir,
      sqliteSynchronous: 'NORMAL',
    });
    try {
      const row = await database.db
        .selectFrom('webhooks')
        .selectAll()
        .where('id', '=', first['id'] as string)
        .executeTakeFirstOrThrow();
      const copies = Array.from({ length: webhooks - 1 }, (_, i) => ({
        ...row,
        id: newId(),
        url: `${receiver.url}/${tag}/${i + 1}`,
      }));
      await database.db.insertInto('webhooks').values(copies).execute();
    } finally {
      await database.destroy();
    }
  }
  receiver.reset();
  const warmUp = webhooks === 1 ? 200 : 10;
  await within(`warming up ${tag}`, writeAll(server, seeded, warmUp, `${tag} warm-up`));
  await receiver.waitFor(warmUp * webhooks, PHASE_MS);
  receiver.reset();
  return { server, seeded };
}

/** `count` renames by 16 clients, each sending its next as soon as the previous one is answered. */
async function writeAll(server: Server, seeded: Seeded, count: number, tag: string): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < count) await rename(server, seeded, next++, tag);
    }),
  );
}

async function rename(server: Server, seeded: Seeded, i: number, tag: string): Promise<void> {
  const id = seeded.resourceIds[i % seeded.resourceIds.length]!;
  await call(server, seeded.ownerKey, 'PATCH', `/resources/${id}`, { name: `Bench ${tag} ${i}` });
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function throughput(receiver: Receiver): Promise<void> {
  const rows: string[][] = [];
  for (const concurrency of [8, 32]) {
    for (const webhooks of [1, 100]) {
      const count = webhooks === 1 ? events : fanOutEvents;
      const tag = `t${concurrency}w${webhooks}`;
      const mark = cleanups.length;
      const { server, seeded } = await deliveryServer(tag, receiver, webhooks, concurrency);
      const cpuBefore = server.cpu();
      const started = performance.now();
      await within(`${count} writes`, writeAll(server, seeded, count, tag));
      const written = performance.now();
      await receiver.waitFor(count * webhooks, PHASE_MS);
      const delivered = receiver.arrivals.length;
      const last = receiver.arrivals.reduce((latest, arrival) => Math.max(latest, arrival.at), written);
      const seconds = (last - started) / 1000;
      const cpu = server.cpu() - cpuBefore;
      rows.push([
        String(webhooks),
        String(concurrency),
        String(count),
        `${delivered} of ${count * webhooks}`,
        ((written - started) / 1000).toFixed(1),
        seconds.toFixed(1),
        (delivered / seconds).toFixed(0),
        (count / seconds).toFixed(0),
        (cpu / Math.max(1, delivered)).toFixed(0),
      ]);
      // Stops this server and drops its database before the next one starts.
      await unwindTo(mark);
    }
  }
  console.log(
    `\n2. Delivery throughput, ${dialect}: writes by 16 clients as fast as they go, USER-scope ["*"] webhooks ` +
      `of the resources' owner, receiver answering 204 at once; time from the first write to the last ` +
      `delivery; ${load()}\n`,
  );
  console.log(
    table(
      [
        'webhooks',
        'WEBHOOK_CONCURRENCY',
        'events',
        'delivered',
        'writes s',
        'to last delivery s',
        'deliveries/s',
        'events/s',
        'server CPU µs/delivery (writes included)',
      ],
      rows,
    ),
  );
}

/** Runs the clean-ups pushed since `mark` (a phase's server, then its database), newest first. */
async function unwindTo(mark: number): Promise<void> {
  const mine = cleanups.splice(mark);
  while (mine.length > 0) await mine.pop()!();
}

/** Writes at `rate` per second for rateSeconds, each sent on time whether or not earlier ones are answered. */
async function pacedWrites(server: Server, seeded: Seeded, rate: number, tag: string) {
  const count = rate * rateSeconds;
  const responded = new Map<string, number>();
  const writeMs: number[] = [];
  const started = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const due = started + (i * 1000) / rate;
    if (due > performance.now()) await sleep(due - performance.now());
    const sent = performance.now();
    pending.push(
      rename(server, seeded, i, tag).then(() => {
        const at = performance.now();
        responded.set(`Bench ${tag} ${i}`, at);
        writeMs.push(at - sent);
      }),
    );
  }
  await within('paced writes', Promise.all(pending));
  return { count, responded, writeMs };
}

async function delay(receiver: Receiver): Promise<void> {
  const mark = cleanups.length;
  const { server, seeded } = await deliveryServer('delay', receiver, 1, 8);
  const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
  const stats = (values: number[]) =>
    [50, 99, 100].map((p) => percentile(sorted(values), p).toFixed(0)).join(' / ');
  const rows: string[][] = [];
  for (const rate of rates) {
    const tag = `delay${rate}`;
    receiver.reset();
    const { count, responded, writeMs } = await pacedWrites(server, seeded, rate, tag);
    await receiver.waitFor(count, 60_000);
    const afterResponse: number[] = [];
    const afterCreated: number[] = [];
    const wallOffset = Date.now() - performance.now();
    for (const arrival of receiver.arrivals) {
      const response = responded.get(arrival.event.data.name ?? '');
      if (response !== undefined) afterResponse.push(arrival.at - response);
      afterCreated.push(arrival.at + wallOffset - Date.parse(arrival.event.createdAt));
    }
    rows.push([
      `${rate}/s × ${rateSeconds} s`,
      `${receiver.arrivals.length} of ${count}`,
      [50, 99].map((p) => percentile(sorted(writeMs), p).toFixed(0)).join(' / '),
      stats(afterResponse),
      stats(afterCreated),
    ]);
  }
  console.log(
    `\n3. Delay from commit to delivery, ${dialect}: paced writes, 1 webhook, WEBHOOK_POLL_MS 250, ` +
      `WEBHOOK_CONCURRENCY 8; ${load()}\n`,
  );
  console.log(
    table(
      [
        'writes',
        'delivered',
        'write p50/p99 ms',
        'delay after the response p50/p99/max ms',
        'after createdAt p50/p99/max ms',
      ],
      rows,
    ),
  );
  await unwindTo(mark);
}

async function main(): Promise<void> {
  if (pin) execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
  const pinned = pin ? 'servers on CPU 0, this process (load, receiver) on CPU 1' : 'not pinned';
  console.log(`bench:events on ${dialect}, ${pinned}; at the start: ${load()}`);
  if (parts.includes('cost')) {
    await writeCost();
    await cleanUp();
  }
  if (parts.includes('throughput') || parts.includes('delay')) {
    const receiver = await startReceiver();
    if (parts.includes('throughput')) await throughput(receiver);
    if (parts.includes('delay')) await delay(receiver);
  }
  console.log(`\nat the end: ${load()}`);
}

// The whole run's deadline: every part's phases are bounded, this bounds their sum.
const watchdog = setTimeout(
  () => {
    console.error('bench:events overstayed its deadline; cleaning up');
    void cleanUp().finally(() => process.exit(1));
  },
  number('BENCH_TOTAL_MINUTES', 45) * 60_000,
);
try {
  await main();
} finally {
  await cleanUp();
  clearTimeout(watchdog);
}
