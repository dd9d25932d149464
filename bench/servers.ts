// `npm run bench:servers`: the live server directory at scale. Seeds BENCH_HISTORY_SERVERS (default 10,000)
// reporting servers, each with a server key, BENCH_HISTORY_HOURS (default 48) hours of per-minute samples and
// BENCH_HISTORY_ROLLUP_DAYS (default 30) days of hourly rollups straight into the database (one INSERT … SELECT
// per slice of servers), then measures:
//   - storage per server per day of samples and of rollups (SQLite: file pages; PostgreSQL: pg_total_relation_size),
//   - the sample-server-status job (one minute of every server) and the rollup-server-history job (catching up
//     every sampled hour, then a run with nothing to do),
//   - heartbeat ingest through the real HTTP server in its own process: every server sends one heartbeat per round
//     (BENCH_ROUNDS, default 3; the 30 s marker is cleared between rounds): req/s, p50/p99, CPU µs per heartbeat,
//   - GET /servers/:id/stats?range=30d and ?range=24h over random servers for BENCH_DURATION s: req/s, p50/p99.
// BENCH_DATABASE_URL selects PostgreSQL (e.g. postgres://postgres@127.0.0.1:5432/bench; the tables are dropped
// and recreated in the URL's schema), default a fresh SQLite file. BENCH_CONNECTIONS (default 50).
// `npm run bench` runs it at a small scale (1,000 servers) after its endpoint table.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import pg from 'pg';
import { digest } from '../src/core/auth/credentials.js';
import { systemClock } from '../src/core/clock.js';
import { openDatabase } from '../src/core/db/database.js';
import type { Database } from '../src/core/db/database.js';
import { migrateToLatest } from '../src/core/db/migrator.js';
import { newId } from '../src/core/ids.js';
import { createServerHistoryService } from '../src/modules/servers/history/history.service.js';
import type { ServerAccess } from '../src/core/auth/server-access.js';
import { newServerKey } from '../src/modules/servers/keys/server-key.js';
import { seedUsers } from './seed.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export interface ServersBenchOptions {
  servers: number;
  hours: number;
  rollupDays: number;
  /** Servers that get rollups (the first ones); the stats requests go to these. */
  rollupServers: number;
  rounds: number;
  duration: number;
  connections: number;
  databaseUrl?: string;
}

const SLICE = 500;
const iso = (time: number) => new Date(time).toISOString();

/** The service from source in its own process (no build step), jobs off, rate limits off. */
function startService(env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
      env: { ...process.env, ...env, BENCH_SERVERS_CHILD: '1' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (message: { port: number }) => resolve({ child, port: message.port }));
    child.once('exit', (code) => reject(new Error(`service exited with ${code}`)));
  });
}

async function serveChild(): Promise<void> {
  const { buildApp } = await import('../src/app.js');
  const { loadConfig } = await import('../src/config.js');
  const config = loadConfig({ ...process.env, RATE_LIMIT: 'off', LOG_LEVEL: 'warn' });
  const app = await buildApp({ config });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  process.send?.({ port: typeof address === 'object' && address !== null ? address.port : 0 });
  process.on('message', (message) => {
    if (message === 'cpu') process.send?.({ cpu: process.cpuUsage() });
  });
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

function cpuOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (message: { cpu: NodeJS.CpuUsage }) =>
      resolve(message.cpu.user + message.cpu.system),
    );
    child.send('cpu');
  });
}

async function stopService(child: ChildProcess): Promise<void> {
  child.removeAllListeners('exit');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Bytes the history tables take: whole-database pages on SQLite (after a checkpoint), relation sizes on PG. */
async function historyBytes(database: Database, file: string | undefined): Promise<number> {
  if (database.dialect === 'postgres') {
    const { rows } = await sql<{ bytes: string }>`
      select pg_total_relation_size('server_samples') + pg_total_relation_size('server_rollups') as bytes`.execute(
      database.db,
    );
    return Number(rows[0]!.bytes);
  }
  await sql`pragma wal_checkpoint(truncate)`.execute(database.db);
  return statSync(file!).size;
}

async function tableBytes(database: Database, table: string, file: string | undefined): Promise<number> {
  if (database.dialect === 'postgres') {
    const { rows } = await sql<{ bytes: string }>`select pg_total_relation_size(${table}) as bytes`.execute(
      database.db,
    );
    return Number(rows[0]!.bytes);
  }
  return historyBytes(database, file);
}

async function seedServersWithKeys(database: Database, count: number, now: number) {
  const { db } = database;
  const owner = await db.selectFrom('users').select('id').orderBy('id').limit(1).executeTakeFirstOrThrow();
  const at = iso(now - 60 * DAY);
  const keys: string[] = [];
  const ids: string[] = [];
  for (let start = 0; start < count; start += SLICE) {
    const servers = [];
    const serverKeys = [];
    for (let i = start; i < Math.min(count, start + SLICE); i++) {
      const id = newId();
      const key = newServerKey();
      ids.push(id);
      keys.push(key);
      servers.push({
        id,
        name: `History server ${i}`,
        slug: `history-${i}`,
        short_description: null,
        description: null,
        ip: `play${i}.example.test`,
        port: 25565,
        online: true,
        online_players: i % 50,
        max_players: 50,
        rank: null,
        status: 'APPROVED' as const,
        status_reason: null,
        status_updated_at: at,
        owner_type: 'USER' as const,
        owner_id: owner.id,
        logo_key: null,
        banner_key: null,
        last_reported_at: iso(now),
        created_at: at,
        updated_at: at,
      });
      serverKeys.push({
        id: newId(),
        server_id: id,
        name: 'bench',
        prefix: key.slice(0, 7),
        key_hash: digest(key),
        created_at: at,
        // Touched recently: the heartbeat writes the key's last use at most once a minute.
        last_used_at: iso(now),
      });
    }
    await db.insertInto('servers').values(servers).execute();
    await db.insertInto('server_keys').values(serverKeys).execute();
  }
  return { ids, keys };
}

/** Samples for every minute of [from, to), generated by the database, one slice of servers per statement. */
async function seedSamplesOf(database: Database, ids: string[], from: number, to: number): Promise<void> {
  const { db, dialect } = database;
  const minutes = Math.round((to - from) / MINUTE);
  for (let start = 0; start < ids.length && minutes > 0; start += SLICE) {
    const inSlice = sql.join(ids.slice(start, start + SLICE));
    // About 97% of minutes online, with 0-49 players; rows in primary-key order.
    if (dialect === 'postgres') {
      await sql`
        insert into server_samples (server_id, minute_at, online, online_players, max_players)
        select id, m, r < 0.97, case when r < 0.97 then (r * 50)::int else 0 end, 50
        from (select s.id, m, random() as r from servers s
              cross join generate_series(${iso(from)}::timestamptz, ${iso(to - MINUTE)}::timestamptz,
                interval '1 minute') m
              where s.id in (${inSlice}) order by s.id, m) seeded`.execute(db);
    } else {
      await sql`
        with recursive m(t) as (select 0 union all select t + 1 from m where t < ${minutes - 1})
        insert into server_samples (server_id, minute_at, online, online_players, max_players)
        select id, strftime('%Y-%m-%dT%H:%M:%S.000Z', ${from / 1000} + t * 60, 'unixepoch'),
          r < 97, case when r < 97 then r / 2 else 0 end, 50
        from (select s.id, m.t, abs(random()) % 100 as r from servers s cross join m
              where s.id in (${inSlice}) order by s.id, m.t)
        where true`.execute(db);
    }
  }
}

/** Rollups for every hour of [from, to), generated by the database, one slice of servers per statement. */
async function seedRollupsOf(database: Database, ids: string[], from: number, to: number): Promise<void> {
  const { db, dialect } = database;
  const hours = Math.round((to - from) / HOUR);
  for (let start = 0; start < ids.length && hours > 0; start += SLICE) {
    const inSlice = sql.join(ids.slice(start, start + SLICE));
    if (dialect === 'postgres') {
      await sql`
        insert into server_rollups
          (server_id, hour_at, online_minutes, player_minutes, peak_players, max_players)
        select s.id, h, 58, 58 * 24, 49, 50
        from servers s
        cross join generate_series(${iso(from)}::timestamptz, ${iso(to - HOUR)}::timestamptz, interval '1 hour') h
        where s.id in (${inSlice})
        order by s.id, h`.execute(db);
    } else {
      await sql`
        with recursive h(t) as (select 0 union all select t + 1 from h where t < ${hours - 1})
        insert into server_rollups
          (server_id, hour_at, online_minutes, player_minutes, peak_players, max_players)
        select s.id, strftime('%Y-%m-%dT%H:%M:%S.000Z', ${from / 1000} + h.t * 3600, 'unixepoch'),
          58, 58 * 24, 49, 50
        from servers s cross join h
        where s.id in (${inSlice})
        order by s.id, h.t`.execute(db);
    }
  }
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  total: number;
  cpuPerRequest: number;
}

async function measure(child: ChildProcess, options: autocannon.Options): Promise<Load> {
  const before = await cpuOf(child);
  const result = await autocannon(options);
  const cpu = (await cpuOf(child)) - before;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors,
    total: result.requests.total,
    cpuPerRequest: cpu / Math.max(1, result.requests.total),
  };
}

const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
};

export async function benchServers(options: ServersBenchOptions): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'marketplace-bench-servers-'));
  const file = join(dataDir, 'bench.db');
  // PostgreSQL: a schema of its own (search_path pinned in the URL), dropped at the end.
  const schema = `bench_servers_${process.pid}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: options.databaseUrl });
    await client.connect();
    await client.query(statement);
    await client.end();
  };
  let databaseUrl = `sqlite:${file}`;
  if (options.databaseUrl !== undefined) {
    await admin(`create schema ${schema}`);
    const url = new URL(options.databaseUrl);
    url.searchParams.set('options', `-c search_path=${schema}`);
    databaseUrl = url.toString();
  }
  const database = openDatabase({ databaseUrl, dataDir, sqliteSynchronous: 'NORMAL' });
  const { db, dialect } = database;
  const lines: string[] = [];
  const report = (line: string) => {
    lines.push(line);
    console.log(line);
  };
  let service: { child: ChildProcess; port: number } | undefined;
  try {
    await migrateToLatest(db, dialect);
    await seedUsers(db, 10);
    const now = Date.now();
    const currentHour = Math.floor(now / HOUR) * HOUR;
    const samples = { from: currentHour - options.hours * HOUR, to: currentHour };
    // Rollups up to the first sampled hour: the rollup job then catches up on every sampled hour.
    const rollups = { from: samples.from - options.rollupDays * DAY, to: samples.from };

    console.log(`Seeding ${options.servers} servers with keys on ${dialect}…`);
    const { ids, keys } = await seedServersWithKeys(database, options.servers, now);
    const empty = await historyBytes(database, file);
    const sampleRows = options.servers * options.hours * 60;
    console.log(`Seeding ${sampleRows.toLocaleString('en')} samples…`);
    const [, seedSamplesMs] = await timed(() => seedSamplesOf(database, ids, samples.from, samples.to));
    const withSamples = await tableBytes(database, 'server_samples', file);
    // Rollups for the first rollupServers servers only (the stats requests go to those): the rollup table's
    // size moves the read cost little (one primary-key range of 24 rows a day), its seeding time a lot.
    const rolled = ids.slice(0, options.rollupServers);
    console.log(`Seeding ${(rolled.length * options.rollupDays * 24).toLocaleString('en')} rollups…`);
    await seedRollupsOf(database, rolled, rollups.from, rollups.to);
    const withRollups = await tableBytes(database, 'server_rollups', file);
    const samplesBytes = dialect === 'postgres' ? withSamples : withSamples - empty;
    const rollupBytes = dialect === 'postgres' ? withRollups : withRollups - withSamples;
    const samplesPerServerDay = samplesBytes / options.servers / (options.hours / 24);
    const rollupsPerServerDay = rollupBytes / Math.max(1, rolled.length) / Math.max(1, options.rollupDays);
    report(
      `\n${dialect}, ${options.servers} reporting servers, ${options.hours} h of samples ` +
        `(${sampleRows.toLocaleString('en')} rows, seeded in ${(seedSamplesMs / 1000).toFixed(0)} s), ` +
        `${options.rollupDays} days of rollups`,
    );
    report(
      `storage per server per day: samples ${samplesPerServerDay.toFixed(0)} B (kept 48 h: ` +
        `${((samplesPerServerDay * 2) / 1024).toFixed(0)} KiB held per server), rollups ` +
        `${rollupsPerServerDay.toFixed(0)} B (kept 400 days: ${((rollupsPerServerDay * 400) / 1024).toFixed(0)} ` +
        `KiB per server)`,
    );

    const history = createServerHistoryService({
      db,
      dialect,
      clock: systemClock,
      serverAccess: {} as ServerAccess,
    });
    await db
      .updateTable('servers')
      .set({ last_reported_at: iso(Date.now()) })
      .execute();
    const [written, sampleMs] = await timed(() => history.sample());
    const [again, sampleAgainMs] = await timed(() => history.sample());
    report(
      `sample-server-status: ${sampleMs.toFixed(0)} ms for ${written} samples; a second run in the same ` +
        `minute ${sampleAgainMs.toFixed(0)} ms (${again} written)`,
    );
    const [caughtUp, rollupMs] = await timed(() => history.rollUp());
    const [, idleMs] = await timed(() => history.rollUp());
    report(
      `rollup-server-history: ${(rollupMs / 1000).toFixed(1)} s to catch up ${caughtUp.hours} hours ` +
        `(${(rollupMs / Math.max(1, caughtUp.hours)).toFixed(0)} ms per hour of ${options.servers} servers; ` +
        `${caughtUp.samplesDeleted} samples past 48 h deleted); a run with nothing to do ${idleMs.toFixed(1)} ms`,
    );

    service = await startService({
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      SECRET: 'bench-secret-'.padEnd(40, 'x'),
    });
    const base = `http://127.0.0.1:${service.port}`;
    const probe = await fetch(`${base}/servers/heartbeat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-server-key': keys[0]! },
      body: JSON.stringify({ onlinePlayers: 1, maxPlayers: 50 }),
    });
    if (probe.status !== 200) throw new Error(`heartbeat: ${probe.status} ${await probe.text()}`);

    const heartbeats: Load[] = [];
    // Round 0 warms the JIT and the caches up and is not reported.
    for (let round = -1; round < options.rounds; round++) {
      // Every server may send again: the 30 s marker is the only state a round leaves behind.
      await db.updateTable('servers').set({ last_heartbeat_at: null }).execute();
      let next = 0;
      const measured = await measure(service.child, {
        url: `${base}/servers/heartbeat`,
        connections: options.connections,
        amount: keys.length,
        requests: [
          {
            method: 'POST',
            setupRequest: (request) => {
              const key = keys[next++ % keys.length]!;
              const players = next % 50;
              return {
                ...request,
                headers: { 'content-type': 'application/json', 'x-server-key': key },
                body: JSON.stringify({
                  onlinePlayers: players,
                  maxPlayers: 50,
                  version: '1.21.4',
                  motd: 'A bench server',
                  latencyMs: 20,
                }),
              };
            },
          },
        ],
      });
      if (round >= 0) heartbeats.push(measured);
    }
    const median = [...heartbeats].sort((a, b) => a.rps - b.rps)[Math.floor(heartbeats.length / 2)]!;
    report(
      `heartbeat ingest (${options.connections} connections, ${keys.length} servers once per round, median of ` +
        `${heartbeats.length} rounds: ${heartbeats.map((h) => h.rps.toFixed(0)).join(' / ')} req/s): ` +
        `${median.rps.toFixed(0)} req/s, p50 ${median.p50} ms, p99 ${median.p99} ms, ` +
        `${median.cpuPerRequest.toFixed(0)} µs CPU per heartbeat, ${median.non2xx} not 200`,
    );

    for (const range of ['30d', '24h']) {
      let next = 0;
      const load = (duration: number) =>
        measure(service!.child, {
          url: `${base}/servers/${ids[0]}/stats?range=${range}`,
          connections: options.connections,
          duration,
          requests: [
            {
              setupRequest: (request) => ({
                ...request,
                path: `/servers/${rolled[(next++ * 7919) % rolled.length]}/stats?range=${range}`,
              }),
            },
          ],
        });
      await load(2);
      const stats = await load(options.duration);
      report(
        `GET /servers/:id/stats?range=${range} (random servers): ${stats.rps.toFixed(0)} req/s, ` +
          `p50 ${stats.p50} ms, p99 ${stats.p99} ms, ${stats.cpuPerRequest.toFixed(0)} µs CPU per request, ` +
          `${stats.non2xx} not 200`,
      );
    }
  } finally {
    if (service !== undefined) await stopService(service.child);
    await database.destroy();
    if (dialect === 'postgres') await admin(`drop schema ${schema} cascade`);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (process.env['BENCH_SERVERS_CHILD'] === '1') {
  await serveChild();
} else if (isMain) {
  await benchServers({
    servers: Number(process.env['BENCH_HISTORY_SERVERS'] ?? 10_000),
    hours: Number(process.env['BENCH_HISTORY_HOURS'] ?? 48),
    rollupDays: Number(process.env['BENCH_HISTORY_ROLLUP_DAYS'] ?? 30),
    rollupServers: Number(process.env['BENCH_HISTORY_ROLLUP_SERVERS'] ?? 1_000),
    rounds: Math.max(1, Number(process.env['BENCH_ROUNDS'] ?? 3)),
    duration: Number(process.env['BENCH_DURATION'] ?? 5),
    connections: Number(process.env['BENCH_CONNECTIONS'] ?? 50),
    ...(process.env['BENCH_DATABASE_URL'] ? { databaseUrl: process.env['BENCH_DATABASE_URL'] } : {}),
  });
}
