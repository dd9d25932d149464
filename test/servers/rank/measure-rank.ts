// What the rank job costs at scale (spec/extensions.md §3). Not part of the suite:
//   npx tsx test/servers/rank/measure-rank.ts                                   (SQLite)
//   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx test/servers/rank/measure-rank.ts
// Seeds RANK_SERVERS APPROVED servers (default 10,000) with 7 days of hourly rollups each and 30 votes each, then
// times recomputeRanks: the first run (every row changes), a run a minute later (age parts move), and a run at
// the same instant (nothing changes).
import { sql } from 'kysely';
import { DEFAULT_RANK_WEIGHTS } from '../../../src/config.js';
import { recomputeRanks, rerankApproved, updateScores } from '../../../src/modules/servers/rank/rank.repo.js';
import { buildTestApp } from '../../helpers/app.js';
import { createUser } from '../../helpers/factories.js';

const say = (line: string) => process.stdout.write(`${line}\n`);
const N = Number(process.env['RANK_SERVERS'] ?? 10_000);
const HOURS = 7 * 24;

async function main(): Promise<void> {
  const t = await buildTestApp();
  try {
    const { db, dialect } = t.app.context.database;
    const pg = dialect === 'postgres';
    const now = new Date('2026-03-01T12:30:00.000Z');
    const voter = await createUser(t.app);
    const series = (n: number) =>
      pg
        ? sql`select g as i from generate_series(1, ${sql.lit(n)}) g`
        : sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${sql.lit(n)}) select i from n`;
    const id = pg ? sql.raw(`'s' || lpad(s.i::text, 8, '0')`) : sql.raw(`'s' || printf('%08d', s.i)`);
    const created = pg
      ? sql.raw(`(timestamptz '2026-01-01T00:00:00Z' + (s.i || ' seconds')::interval)`)
      : sql.raw(`strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01T00:00:00Z', '+' || s.i || ' seconds')`);
    let started = performance.now();
    await sql`
      insert into servers (id, name, slug, ip, port, status, status_updated_at, owner_type, owner_id,
        created_at, updated_at, listed_at)
      select ${id}, 'S', 'slug-' || ${id}, 'play.example.com', 5520, 'APPROVED', ${created}, 'USER', ${voter.id},
        ${created}, ${created}, ${created}
      from (${series(N)}) s
    `.execute(db);
    const hour = (h: string) =>
      pg
        ? sql.raw(`(timestamptz '2026-02-22T12:00:00Z' + (${h} || ' hours')::interval)`)
        : sql.raw(`strftime('%Y-%m-%dT%H:%M:%fZ', '2026-02-22T12:00:00Z', '+' || ${h} || ' hours')`);
    await sql`
      insert into server_rollups (server_id, hour_at, online_minutes, player_minutes, peak_players, max_players)
      select ${id}, ${hour('(h.i - 1)')}, (s.i * 7 + h.i) % 61, ((s.i * 13 + h.i) % 61) * (s.i % 50), s.i % 50, 100
      from (${series(N)}) s cross join (${series(HOURS)}) h
    `.execute(db);
    const voteAt = pg
      ? sql.raw(`(timestamptz '2026-02-05T00:00:00Z' + ((s.i * 31 + v.i * 3600) || ' seconds')::interval)`)
      : sql.raw(
          `strftime('%Y-%m-%dT%H:%M:%fZ', '2026-02-05T00:00:00Z', '+' || (s.i * 31 + v.i * 3600) || ' seconds')`,
        );
    await sql`
      insert into server_votes (id, server_id, user_id, username, client_key, address, created_at)
      select ${id} || '-' || v.i, ${id}, ${voter.id}, 'Voter', '203.0.113.7', '203.0.113.7', ${voteAt}
      from (${series(N)}) s cross join (${series(30)}) v
    `.execute(db);
    if (pg) await sql`analyze`.execute(db);
    say(
      `${dialect}: seeded ${N} servers, ${N * HOURS} rollups, ${N * 30} votes in ${Math.round(performance.now() - started)} ms`,
    );

    const time = async (label: string, at: Date) => {
      started = performance.now();
      await recomputeRanks(db, dialect, at, DEFAULT_RANK_WEIGHTS);
      say(`${label}: ${Math.round(performance.now() - started)} ms`);
    };
    if (process.env['RANK_PARTS'] === '1') {
      for (const [label, run] of [
        [
          'updateScores (outside the job: JIT on)',
          () => updateScores(db, dialect, now, DEFAULT_RANK_WEIGHTS),
        ],
        ['rerankApproved', () => rerankApproved(db)],
      ] as const) {
        started = performance.now();
        await run();
        say(`${label}: ${Math.round(performance.now() - started)} ms`);
      }
    }
    await time('first run (every score and rank written)', now);
    await time('same instant again (nothing changes)', now);
    await time('a minute later (age parts move)', new Date(now.getTime() + 60_000));
    await time('an hour later (new 7-day window)', new Date(now.getTime() + 3_600_000));
    const ranked = await db
      .selectFrom('servers')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('rank').as('max')])
      .where('rank', 'is not', null)
      .executeTakeFirstOrThrow();
    say(`ranked: ${Number(ranked.n)} (max rank ${Number(ranked.max)})`);
  } finally {
    await t.close();
  }
}

await main();
