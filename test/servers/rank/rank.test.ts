// The transparent rank (spec/extensions.md §3): the order of a constructed directory equals the formula's order,
// under the default weights and the operator's; GET /servers/:id/rank explains each number; approval ranks at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { createPersonas } from '../../helpers/factories.js';
import type { Personas } from '../../helpers/factories.js';
import { expectError } from '../../helpers/http.js';
import { createServer, expectServerInvariants, getServer, moderate } from '../helpers.js';
import type { ServerBody } from '../helpers.js';
import { DEFAULT_WEIGHTS, NOW, buildDirectory, expectedOrder, expectedScore } from './construct.js';
import type { Built, Weights } from './construct.js';

interface RankBody {
  rank: number | null;
  score: number;
  components: { votes30d: number; averagePlayers7d: number; uptime7d: number; daysListed: number };
  weights: Weights;
  formula: string;
  computedAt: string | null;
  listedAt: string | null;
}

const RANK_JOB = 'recompute-server-ranks';

async function listByRank(t: TestApp): Promise<ServerBody[]> {
  const response = await t.app.inject({ method: 'GET', url: '/servers?sort=rank&limit=100' });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { servers: ServerBody[] }).servers;
}

async function rankOf(t: TestApp, serverId: string, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'GET', url: `/servers/${serverId}/rank`, headers });
}

describe('the transparent rank with the default weights', () => {
  let t: TestApp;
  let p: Personas;
  let built: Built[];
  const byName = (name: string) => built.find((entry) => entry.spec.name === name)!;

  beforeAll(async () => {
    t = await buildTestApp();
    t.clock.set(new Date(NOW - 60 * 86_400_000));
    p = await createPersonas(t.app);
    built = await buildDirectory(t.app, t.clock, p, 'def');
    expect(await t.app.context.scheduler.runNow(RANK_JOB)).toBe(true);
  });
  afterAll(async () => t.close());

  it('is a job registered to run every minute', () => {
    expect(t.app.context.scheduler.jobs()).toContain(RANK_JOB);
  });

  it('orders GET /servers?sort=rank (and the default sort) as the formula does, ties by older listing', async () => {
    const order = expectedOrder(built, DEFAULT_WEIGHTS);
    // The construction exercises every part: the two quiet old servers tie and keep their listing order.
    expect(order.indexOf('alpha-old-quiet')).toBe(order.indexOf('bravo-old-quiet') - 1);
    const listed = await listByRank(t);
    expect(listed.map((s) => s.name)).toEqual(order);
    expect(listed.map((s) => s.rank)).toEqual(order.map((_, i) => i + 1));
    const byDefault = await t.app.inject({ method: 'GET', url: '/servers?limit=100' });
    expect((byDefault.json() as { servers: ServerBody[] }).servers.map((s) => s.name)).toEqual(order);
    await expectServerInvariants(t.app);
  });

  it('explains each rank: components by the definitions, score = Σ weight × component, the formula', async () => {
    const listed = await listByRank(t);
    for (const entry of built.filter((e) => e.listedAt !== null && e.spec.suspend !== true)) {
      const response = await rankOf(t, entry.server.id);
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json() as RankBody;
      const expected = expectedScore(entry, DEFAULT_WEIGHTS);
      expect(body.rank).toBe(listed.find((s) => s.id === entry.server.id)!.rank);
      expect(body.components.votes30d, entry.spec.name).toBe(expected.votes30d);
      expect(body.components.averagePlayers7d, entry.spec.name).toBeCloseTo(expected.averagePlayers7d, 9);
      expect(body.components.uptime7d, entry.spec.name).toBeCloseTo(expected.uptime7d, 9);
      expect(body.components.daysListed, entry.spec.name).toBeCloseTo(expected.daysListed, 6);
      expect(body.score, entry.spec.name).toBeCloseTo(expected.score, 6);
      const { votes, players, uptime, age } = body.weights;
      const c = body.components;
      expect(body.score).toBeCloseTo(
        votes * c.votes30d +
          players * c.averagePlayers7d +
          uptime * c.uptime7d +
          age * Math.min(c.daysListed, 30),
        9,
      );
      expect(body.weights).toEqual(DEFAULT_WEIGHTS);
      expect(body.formula).toBe(
        'score = 0.5·votes30d + 2·averagePlayers7d + 30·uptime7d + 1/3·min(daysListed, 30); ties go to the older listing',
      );
      expect(body.computedAt).toBe(new Date(NOW).toISOString());
      expect(body.listedAt).toBe(new Date(entry.listedAt!).toISOString());
    }
    // The parts that must be left out were: votes past 30 days, rollups outside the 168 complete hours.
    const delta = (await rankOf(t, byName('delta-voted').server.id)).json() as RankBody;
    expect(delta.components.votes30d).toBe(30);
    const echo = (await rankOf(t, byName('echo-half-online').server.id)).json() as RankBody;
    expect(echo.components).toMatchObject({ uptime7d: 0.5, averagePlayers7d: 10 });
    const foxtrot = (await rankOf(t, byName('foxtrot-new').server.id)).json() as RankBody;
    expect(foxtrot.components).toMatchObject({ uptime7d: 0, averagePlayers7d: 0, votes30d: 4 });
  });

  it('keeps the rank of non-APPROVED servers null: 404 for the public, score with rank null for the owner side and moderators', async () => {
    for (const name of ['hotel-suspended', 'india-pending']) {
      const { server } = byName(name);
      expect((await getServer(t.app, server.slug, p.user)).rank).toBeNull();
      expectError(await rankOf(t, server.id), 404, 'NOT_FOUND');
      expectError(await rankOf(t, server.id, p.stranger.headers), 404, 'NOT_FOUND');
      for (const viewer of [p.user, p.moderator]) {
        const response = await rankOf(t, server.id, viewer.headers);
        expect(response.statusCode, response.body).toBe(200);
        const body = response.json() as RankBody;
        expect(body.rank).toBeNull();
        expect(body.score).toBeCloseTo(expectedScore(byName(name), DEFAULT_WEIGHTS).score, 6);
      }
    }
    // The pending server has never been listed: no age part.
    const pending = (await rankOf(t, byName('india-pending').server.id, p.user.headers)).json() as RankBody;
    expect(pending).toMatchObject({ listedAt: null, components: { votes30d: 200, daysListed: 0 } });
  });

  it('answers 404 for an unknown server and 400 for a malformed id', async () => {
    expectError(await rankOf(t, 'no-such-server'), 404, 'NOT_FOUND');
    expectError(await rankOf(t, 'x'.repeat(65)), 400);
  });

  it('ranks a server at approval, without the job, by its computed score; others shift', async () => {
    // india-pending already carries the score of its 200 votes (100): approval puts it first at once.
    const india = byName('india-pending').server;
    const before = await listByRank(t);
    const approved = await moderate(t.app, p.moderator, india.id, 'approve');
    expect(approved.rank).toBe(1);
    const after = await listByRank(t);
    expect(after.map((s) => s.name)).toEqual(['india-pending', ...before.map((s) => s.name)]);
    expect(after.map((s) => s.rank)).toEqual(after.map((_, i) => i + 1));
    expect(((await rankOf(t, india.id)).json() as RankBody).listedAt).toBe(new Date(NOW).toISOString());

    // A brand-new server has no score yet: it is ranked last at once, never null.
    const fresh = await createServer(t.app, p.user, { name: 'juliet-fresh' });
    const ranked = await moderate(t.app, p.moderator, fresh.id, 'approve');
    expect(ranked.rank).toBe(after.length + 1);
    await expectServerInvariants(t.app);

    // Leaving APPROVED clears it; coming back keeps the first listing time.
    t.clock.advance(60_000);
    await moderate(t.app, p.moderator, fresh.id, 'suspend');
    expect((await getServer(t.app, fresh.slug, p.user)).rank).toBeNull();
    t.clock.advance(60_000);
    expect((await moderate(t.app, p.moderator, fresh.id, 'approve')).rank).toEqual(expect.any(Number));
    expect(((await rankOf(t, fresh.id)).json() as RankBody).listedAt).toBe(new Date(NOW).toISOString());
    await t.app.context.scheduler.runNow(RANK_JOB);
    const final = await listByRank(t);
    expect(final.map((s) => s.rank)).toEqual(final.map((_, i) => i + 1));
    await expectServerInvariants(t.app);
  });

  it('writes only what changed: a second run at the same time moves no rank and keeps the directory version', async () => {
    await t.app.context.scheduler.runNow(RANK_JOB);
    const version = async () =>
      Number(
        (
          await t.app.context.database.db
            .selectFrom('counters')
            .select('value')
            .where('name', '=', 'server_directory_version')
            .executeTakeFirstOrThrow()
        ).value,
      );
    const before = await version();
    await t.app.context.scheduler.runNow(RANK_JOB);
    expect(await version()).toBe(before);
  });
});

describe('the transparent rank with the operator weights', () => {
  const weights: Weights = { votes: 10, players: 0, uptime: 1, age: 0.25 };
  let t: TestApp;
  let built: Built[];

  beforeAll(async () => {
    t = await buildTestApp({
      RANK_WEIGHT_VOTES: '10',
      RANK_WEIGHT_PLAYERS: '0',
      RANK_WEIGHT_UPTIME: '1',
      RANK_WEIGHT_AGE: '1/4',
    });
    t.clock.set(new Date(NOW - 60 * 86_400_000));
    const p = await createPersonas(t.app);
    built = await buildDirectory(t.app, t.clock, p, 'op');
    expect(await t.app.context.scheduler.runNow(RANK_JOB)).toBe(true);
  });
  afterAll(async () => t.close());

  it('orders by the configured weights, an order different from the default one', async () => {
    const order = expectedOrder(built, weights);
    expect(order).not.toEqual(expectedOrder(built, DEFAULT_WEIGHTS));
    expect((await listByRank(t)).map((s) => s.name)).toEqual(order);
  });

  it('shows those weights and the formula in GET /servers/:id/rank and in /openapi.json', async () => {
    const delta = built.find((entry) => entry.spec.name === 'delta-voted')!;
    const body = (await rankOf(t, delta.server.id)).json() as RankBody;
    expect(body.weights).toEqual(weights);
    expect(body.formula).toBe(
      'score = 10·votes30d + 0·averagePlayers7d + 1·uptime7d + 0.25·min(daysListed, 30); ties go to the older listing',
    );
    expect(body.score).toBeCloseTo(expectedScore(delta, weights).score, 6);

    const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    const operation = spec.paths['/servers/{id}/rank']!['get']!;
    expect(operation).toMatchObject({ operationId: 'getServerRank', tags: ['servers'] });
    expect(operation['description']).toContain(body.formula);
    expect(Object.keys(operation['responses'] as object)).toEqual(
      expect.arrayContaining(['200', '400', '404']),
    );
    const sort = (operation && spec.paths['/servers']!['get']!['parameters']) as Array<{
      name: string;
      description?: string;
      schema?: { description?: string };
    }>;
    const sortParam = sort.find((param) => param.name === 'sort')!;
    expect(sortParam.description ?? sortParam.schema?.description).toContain(
      'score = 0.5·votes30d + 2·averagePlayers7d + 30·uptime7d + 1/3·min(daysListed, 30)',
    );
  });
});

// The 7-day inputs are recomputed only when the window moves (each hour) or a newer rollup hour is written: both
// triggers must still bring every change in.
describe('the 7-day inputs follow the rollups and the window', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => t.close());

  it('picks up a newly rolled-up hour, keeps it while it is in the window, and drops it 7 days later', async () => {
    const hour = 60 * 60_000;
    t.clock.set(new Date(NOW - 10 * 86_400_000));
    const p = await createPersonas(t.app);
    const server = await createServer(t.app, p.user, { name: 'window-watch' });
    await moderate(t.app, p.moderator, server.id, 'approve');
    t.clock.set(new Date(NOW));
    const components = async () => {
      expect(await t.app.context.scheduler.runNow(RANK_JOB)).toBe(true);
      const response = await rankOf(t, server.id);
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as RankBody).components;
    };
    expect(await components()).toMatchObject({ uptime7d: 0, averagePlayers7d: 0 });

    // The rollup job writes the hour that just ended (the newest rollup hour moves).
    const lastHour = Math.floor(NOW / hour) * hour - hour;
    await t.app.context.database.db
      .insertInto('server_rollups')
      .values({
        server_id: server.id,
        hour_at: new Date(lastHour).toISOString(),
        online_minutes: 60,
        player_minutes: 600,
        peak_players: 12,
        max_players: 100,
      })
      .execute();
    const minutesInWindow = 7 * 24 * 60;
    const withHour = await components();
    expect(withHour.uptime7d).toBeCloseTo(60 / minutesInWindow, 10);
    expect(withHour.averagePlayers7d).toBeCloseTo(600 / minutesInWindow, 10);

    // An hour later the window has moved but still holds that hour.
    t.clock.advance(hour);
    expect((await components()).uptime7d).toBeCloseTo(60 / minutesInWindow, 10);

    // Seven days later it has left the window.
    t.clock.advance(7 * 24 * hour);
    expect(await components()).toMatchObject({ uptime7d: 0, averagePlayers7d: 0 });
  });
});
