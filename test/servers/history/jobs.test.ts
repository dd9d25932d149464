// The sample-server-status and rollup-server-history jobs: one sample per reporting server per minute, hourly
// rollups (math, hour boundaries, catching up after downtime) and retention at its exact boundaries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { createPersonas } from '../../helpers/factories.js';
import type { Personas } from '../../helpers/factories.js';
import { createServer, createApprovedServer, reportStatus } from '../helpers.js';
import {
  DAY,
  HOUR,
  MINUTE,
  iso,
  rollupsOf,
  runRollup,
  runSample,
  samplesOf,
  seedSamples,
} from './helpers.js';
import type { SampleRow } from './helpers.js';

describe('sample-server-status', () => {
  let t: TestApp;
  let p: Personas;

  beforeAll(async () => {
    t = await buildTestApp();
    t.clock.set('2026-03-02T10:00:10.000Z');
    p = await createPersonas(t.app);
  });
  afterAll(async () => t.close());

  it('writes one sample per reporting server per minute, however many runs that minute', async () => {
    t.clock.set('2026-03-02T10:00:10.000Z');
    const server = await createApprovedServer(t.app, p.user, p.moderator);
    await reportStatus(t.app, p.user, server.id, { online: true, onlinePlayers: 12, maxPlayers: 50 });
    await runSample(t.app);
    t.clock.set('2026-03-02T10:00:50.000Z');
    await reportStatus(t.app, p.user, server.id, { online: true, onlinePlayers: 13, maxPlayers: 50 });
    await runSample(t.app);
    expect(await samplesOf(t.app, server.id)).toEqual([
      {
        server_id: server.id,
        minute_at: '2026-03-02T10:00:00.000Z',
        online: true,
        online_players: 12,
        max_players: 50,
      },
    ]);

    t.clock.set('2026-03-02T10:01:05.000Z');
    await runSample(t.app);
    const samples = await samplesOf(t.app, server.id);
    expect(samples.map((s) => [s.minute_at, s.online_players])).toEqual([
      ['2026-03-02T10:00:00.000Z', 12],
      ['2026-03-02T10:01:00.000Z', 13],
    ]);

    // The 24h stats read these samples once their minutes are over.
    t.clock.set('2026-03-02T10:02:00.000Z');
    const stats = await t.app.inject({ method: 'GET', url: `/servers/${server.id}/stats` });
    expect(stats.json()).toMatchObject({
      range: '24h',
      // The 10:00 bucket is cut at 10:02: its average is over 2 minutes.
      points: [{ at: '2026-03-02T10:00:00.000Z', onlinePlayers: 13, maxPlayers: 50, online: true }],
      peakPlayers: 13,
      // Created at 10:00:10: the counted minutes are 10:00 and 10:01.
      uptime: 1,
      averagePlayers: 12.5,
    });
  });

  it('samples an offline report as offline with 0 players', async () => {
    t.clock.set('2026-03-02T10:03:00.000Z');
    const server = await createServer(t.app, p.user);
    await reportStatus(t.app, p.user, server.id, { online: false, onlinePlayers: 4, maxPlayers: 20 });
    await runSample(t.app);
    expect(await samplesOf(t.app, server.id)).toEqual([
      {
        server_id: server.id,
        minute_at: '2026-03-02T10:03:00.000Z',
        online: false,
        online_players: 0,
        max_players: 20,
      },
    ]);
  });

  it('skips servers that never reported, and those whose last report is 3 minutes old', async () => {
    t.clock.set('2026-03-02T10:05:00.000Z');
    const silent = await createServer(t.app, p.user);
    const stale = await createServer(t.app, p.user);
    await reportStatus(t.app, p.user, stale.id, { online: true, onlinePlayers: 1, maxPlayers: 10 });

    t.clock.set('2026-03-02T10:07:59.999Z');
    await runSample(t.app);
    expect((await samplesOf(t.app, stale.id)).map((s) => s.minute_at)).toEqual(['2026-03-02T10:07:00.000Z']);

    t.clock.set('2026-03-02T10:08:00.000Z');
    await runSample(t.app);
    expect((await samplesOf(t.app, stale.id)).map((s) => s.minute_at)).toEqual(['2026-03-02T10:07:00.000Z']);
    expect(await samplesOf(t.app, silent.id)).toEqual([]);
  });
});

describe('rollup-server-history', () => {
  let t: TestApp;
  let p: Personas;
  let a: string;
  let b: string;
  const at = (time: string, minute: number) => iso(Date.parse(time) + minute * MINUTE);
  const sample = (serverId: string, minuteAt: string, online: boolean, players: number, max: number) =>
    ({
      server_id: serverId,
      minute_at: minuteAt,
      online,
      online_players: players,
      max_players: max,
    }) satisfies SampleRow;

  beforeAll(async () => {
    t = await buildTestApp();
    t.clock.set('2026-03-02T12:00:00.000Z');
    p = await createPersonas(t.app);
    a = (await createServer(t.app, p.user)).id;
    b = (await createServer(t.app, p.user)).id;
  });
  afterAll(async () => t.close());

  it('aggregates each complete hour: online minutes, player-minutes, peak and capacity', async () => {
    const rows: SampleRow[] = [sample(a, '2026-03-02T12:59:00.000Z', true, 3, 40)];
    // 13:00-13:29 online with i players, 13:30-13:44 offline, 13:45-13:59 no sample.
    for (let i = 0; i < 30; i += 1) rows.push(sample(a, at('2026-03-02T13:00:00.000Z', i), true, i, 50));
    for (let i = 30; i < 45; i += 1) rows.push(sample(a, at('2026-03-02T13:00:00.000Z', i), false, 0, 50));
    rows.push(sample(a, '2026-03-02T14:00:00.000Z', true, 7, 60));
    await seedSamples(t.app, rows);

    t.clock.set('2026-03-02T14:30:00.000Z');
    await runRollup(t.app);
    const expected = [
      {
        hour_at: '2026-03-02T12:00:00.000Z',
        online_minutes: 1,
        player_minutes: 3,
        peak_players: 3,
        max_players: 40,
      },
      {
        hour_at: '2026-03-02T13:00:00.000Z',
        online_minutes: 30,
        player_minutes: 435,
        peak_players: 29,
        max_players: 50,
      },
    ].map((row) => ({ server_id: a, ...row }));
    // 14:00 is the next hour, not yet complete.
    expect(await rollupsOf(t.app, a)).toEqual(expected);

    // A rerun (or a second process) rewrites the same numbers.
    await runRollup(t.app);
    expect(await rollupsOf(t.app, a)).toEqual(expected);

    t.clock.set('2026-03-02T15:00:00.000Z');
    await runRollup(t.app);
    expect(await rollupsOf(t.app, a)).toEqual([
      ...expected,
      {
        server_id: a,
        hour_at: '2026-03-02T14:00:00.000Z',
        online_minutes: 1,
        player_minutes: 7,
        peak_players: 7,
        max_players: 60,
      },
    ]);
  });

  it('catches up on every missed hour that has samples after downtime', async () => {
    await seedSamples(t.app, [
      sample(a, '2026-03-02T16:10:00.000Z', true, 5, 10),
      sample(a, '2026-03-02T17:20:00.000Z', true, 6, 10),
      sample(b, '2026-03-02T17:21:00.000Z', false, 0, 8),
      sample(a, '2026-03-02T19:59:00.000Z', true, 9, 10),
      // Not complete at 21:10: stays for the next run.
      sample(a, '2026-03-02T21:05:00.000Z', true, 1, 10),
    ]);
    t.clock.set('2026-03-02T21:10:00.000Z');
    await runRollup(t.app);
    const hours = (await rollupsOf(t.app, a)).map((r) => [r.hour_at, r.player_minutes]);
    expect(hours.slice(3)).toEqual([
      ['2026-03-02T16:00:00.000Z', 5],
      ['2026-03-02T17:00:00.000Z', 6],
      ['2026-03-02T19:00:00.000Z', 9],
    ]);
    expect(await rollupsOf(t.app, b)).toEqual([
      {
        server_id: b,
        hour_at: '2026-03-02T17:00:00.000Z',
        online_minutes: 0,
        player_minutes: 0,
        peak_players: 0,
        max_players: 8,
      },
    ]);
  });

  it('keeps samples 48 h and rollups 400 days, to the millisecond', async () => {
    // The oldest sample is a's at 12:59.
    t.clock.set(new Date(Date.parse('2026-03-02T12:59:00.000Z') + 2 * DAY));
    await runRollup(t.app);
    expect((await samplesOf(t.app, a))[0]?.minute_at).toBe('2026-03-02T12:59:00.000Z');
    t.clock.advance(1);
    await runRollup(t.app);
    expect((await samplesOf(t.app, a))[0]?.minute_at).toBe('2026-03-02T13:00:00.000Z');
    // The 21:05 sample was rolled up before any deletion reached it.
    expect((await rollupsOf(t.app, a)).at(-1)).toMatchObject({
      hour_at: '2026-03-02T21:00:00.000Z',
      player_minutes: 1,
    });

    t.clock.set(new Date(Date.parse('2026-03-02T12:00:00.000Z') + 400 * DAY));
    await runRollup(t.app);
    expect(await samplesOf(t.app, a)).toEqual([]);
    expect((await rollupsOf(t.app, a))[0]?.hour_at).toBe('2026-03-02T12:00:00.000Z');
    t.clock.advance(1);
    await runRollup(t.app);
    expect((await rollupsOf(t.app, a)).map((r) => r.hour_at)).toEqual([
      '2026-03-02T13:00:00.000Z',
      '2026-03-02T14:00:00.000Z',
      '2026-03-02T16:00:00.000Z',
      '2026-03-02T17:00:00.000Z',
      '2026-03-02T19:00:00.000Z',
      '2026-03-02T21:00:00.000Z',
    ]);
    expect(HOUR).toBe(60 * MINUTE);
  });
});
