// What a queue position costs at 100k PENDING items per kind (spec/extensions.md §4). Not part of the suite:
//   npx tsx test/moderation/queue/measure-scale.ts                                   (SQLite)
//   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx test/moderation/queue/measure-scale.ts
// Seeds directly in SQL, then times the owner-side reads (the whole HTTP request) at the front, middle and back
// of each queue, prints the query plans, and times one statistics computation.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../../../src/core/db/schema.js';
import { countAround, countPending } from '../../../src/modules/moderation/queue/queue.repo.js';
import type { QueueKind } from '../../../src/modules/moderation/queue/queue.repo.js';
import { moderationStats } from '../../../src/modules/moderation/queue/queue.service.js';
import { buildTestApp } from '../../helpers/app.js';
import { createUser } from '../../helpers/factories.js';

const say = (line: string) => process.stdout.write(`${line}\n`);
const N = Number(process.env['QUEUE_ITEMS'] ?? 100_000);
const RUNS = 50;

async function seed(db: Kysely<DB>, pg: boolean, ownerId: string): Promise<string> {
  const series = pg
    ? sql`select g as i from generate_series(1, ${sql.lit(2 * N)}) g`
    : sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${sql.lit(2 * N)}) select i from n`;
  // As many APPROVED rows again, so the queue is part of each table as in a real catalogue.
  const status = sql.raw(`case when i <= ${N} then 'PENDING' else 'APPROVED' end`);
  // Ids sort like the UUIDv7 they stand for; times one second apart from 2026-01-01.
  const id = (prefix: string) =>
    pg ? sql.raw(`'${prefix}' || lpad(i::text, 8, '0')`) : sql.raw(`'${prefix}' || printf('%08d', i)`);
  const at = pg
    ? sql.raw(`(timestamptz '2026-01-01T00:00:00Z' + (i || ' seconds')::interval)`)
    : sql.raw(`strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01T00:00:00Z', '+' || i || ' seconds')`);
  await sql`
    insert into resources (id, name, name_key, slug, short_description, description, type, status, owner_type,
      owner_id, created_at, updated_at)
    select ${id('r')}, 'R', 'r', ${id('slug-')}, 'S', '', 'MOD', ${status}, 'USER', ${ownerId}, ${at}, ${at}
    from (${series}) s
  `.execute(db);
  await sql`update counters set value = value + ${N} where name = 'resources.status.PENDING'`.execute(db);
  const { rows: hosts } = await sql<{ id: string }>`select id from resources order by id limit 1`.execute(db);
  const host = hosts[0]!.id;
  await sql`
    insert into resource_versions (id, resource_id, version_number, channel, status, created_at, updated_at,
      submitted_at)
    select ${id('v')}, ${host}, ${id('')}, 'RELEASE', ${status}, ${at}, ${at}, ${at} from (${series}) s
  `.execute(db);
  await sql`
    insert into servers (id, name, slug, ip, port, status, status_updated_at, owner_type, owner_id, created_at,
      updated_at)
    select ${id('s')}, 'S', ${id('server-')}, 'play.example.com', 25565, ${status}, ${at}, 'USER', ${ownerId},
      ${at}, ${at}
    from (${series}) s
  `.execute(db);
  return host;
}

const QUEUE_SQL: Record<QueueKind, [string, string]> = {
  resources: ['resources', 'created_at'],
  versions: ['resource_versions', 'submitted_at'],
  servers: ['servers', 'status_updated_at'],
};

const explainOf = (pg: boolean) =>
  pg ? sql.raw('explain (analyze, costs off, timing off, summary off)') : sql.raw('explain query plan');

async function plan(
  db: Kysely<DB>,
  pg: boolean,
  kind: QueueKind,
  since: string,
  id: string,
): Promise<string> {
  const [table, column] = QUEUE_SQL[kind];
  const explain = explainOf(pg);
  const { rows } = await sql<Record<string, unknown>>`
    ${explain} select count(*) as n from ${sql.table(table)}
    where status = 'PENDING' and (${sql.ref(column)}, id) < (${since}, ${id})
  `.execute(db);
  return rows.map((row) => String(row['QUERY PLAN'] ?? row['detail'])).join('\n    ');
}

async function time(run: () => Promise<unknown>): Promise<{ medianMs: number; p90Ms: number }> {
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = process.hrtime.bigint();
    await run();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  const round = (value: number) => Math.round(value * 100) / 100;
  return {
    medianMs: round(samples[Math.floor(RUNS / 2)]!),
    p90Ms: round(samples[Math.ceil(RUNS * 0.9) - 1]!),
  };
}

async function main(): Promise<void> {
  const t = await buildTestApp();
  const { db, dialect } = t.app.context.database;
  const pg = dialect === 'postgres';
  try {
    const owner = await createUser(t.app);
    const baseline = `/resources/r${String(2 * N).padStart(8, '0')}`;
    const started = Date.now();
    const host = await seed(db, pg, owner.id);
    say(
      `${dialect}: seeded ${N} PENDING and ${N} APPROVED resources, versions and servers in ${Date.now() - started} ms`,
    );
    // A settled table, as after autovacuum: statistics and the visibility map index-only scans rely on.
    if (pg) await sql`vacuum analyze`.execute(db);
    const at = (i: number) => new Date(Date.parse('2026-01-01T00:00:00Z') + i * 1000).toISOString();
    const pad = (i: number) => String(i).padStart(8, '0');
    const urls: Record<QueueKind, (i: number) => string> = {
      resources: (i) => `/resources/r${pad(i)}`,
      versions: (i) => `/resources/${host}/versions/v${pad(i)}`,
      servers: (i) => `/servers/s${pad(i)}`,
    };
    const prefix: Record<QueueKind, string> = { resources: 'r', versions: 'v', servers: 's' };
    for (const kind of ['resources', 'versions', 'servers'] as const) {
      for (const i of [1, N / 2, N]) {
        const response = await t.app.inject({ method: 'GET', url: urls[kind](i), headers: owner.headers });
        const shown = (response.json() as { moderation?: { position: number; total: number } }).moderation;
        if (shown?.position !== i || shown.total !== N) {
          throw new Error(`${kind} ${i}: ${JSON.stringify(shown)} (${response.body.slice(0, 200)})`);
        }
        const request = await time(() =>
          t.app.inject({ method: 'GET', url: urls[kind](i), headers: owner.headers }),
        );
        const key = `${prefix[kind]}${pad(i)}`;
        const ahead = await time(() => countAround(db, kind, 'ahead', at(i), key));
        const behind = await time(() => countAround(db, kind, 'behind', at(i), key));
        say(
          `  ${kind} position ${i}: GET ${JSON.stringify(request)}, ahead ${JSON.stringify(ahead)}, ` +
            `behind ${JSON.stringify(behind)}`,
        );
      }
      say(`  ${kind} plain count of PENDING: ${JSON.stringify(await time(() => countPending(db, kind)))}`);
      if (kind !== 'resources') {
        const { rows } = await sql<Record<string, unknown>>`
          ${explainOf(pg)} select count(*) as n from ${sql.table(QUEUE_SQL[kind][0])} where status = 'PENDING'
        `.execute(db);
        const text = rows.map((row) => String(row['QUERY PLAN'] ?? row['detail'])).join('\n    ');
        say(`  ${kind} plain count plan:\n    ${text}`);
      }
      for (const i of [N / 2, N]) {
        const text = await plan(db, pg, kind, at(i), `${prefix[kind]}${pad(i)}`);
        say(`  ${kind} plan (position ${i}):\n    ${text}`);
      }
    }
    // The same read of an APPROVED resource by its owner: what a read costs without a position.
    const plain = await time(() => t.app.inject({ method: 'GET', url: baseline, headers: owner.headers }));
    say(`  baseline GET of an APPROVED resource: ${JSON.stringify(plain)}`);
    let clockMs = t.clock.now().getTime();
    const stats = await time(() => {
      clockMs += 60_000;
      t.clock.set(new Date(clockMs));
      return moderationStats(db, t.clock);
    });
    say(`  statistics computation (uncached): ${JSON.stringify(stats)}`);
  } finally {
    await t.close();
  }
}

await main();
