// GET /servers/:id/stats: each range reads its table (24h the samples, 7d/30d/90d the rollups), the uptime and
// averages count the minutes since max(range start, creation) with missing minutes offline, the view rule of
// GET /servers/:id, and bad input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { createPersonas } from '../../helpers/factories.js';
import type { Personas, TestUser } from '../../helpers/factories.js';
import { expectError } from '../../helpers/http.js';
import { loadOpenApi } from '../../helpers/openapi.js';
import { createApprovedServer, createServer } from '../helpers.js';
import { MINUTE, iso, seedRollups, seedSamples } from './helpers.js';
import type { SampleRow } from './helpers.js';

let t: TestApp;
let p: Personas;
let approved: string;
let pending: string;
let young: string;

// Servers created on April 1st (young: April 10th 22:00:30); "now" is April 11th 00:00:30.
const NOW = '2026-04-11T00:00:30.000Z';

const get = (serverId: string, query = '', by?: TestUser) =>
  t.app.inject({
    method: 'GET',
    url: `/servers/${serverId}/stats${query}`,
    ...(by ? { headers: by.headers } : {}),
  });

const sample = (serverId: string, minuteAt: string, online: boolean, players: number, max: number) =>
  ({
    server_id: serverId,
    minute_at: minuteAt,
    online,
    online_players: players,
    max_players: max,
  }) satisfies SampleRow;
const rollup = (
  serverId: string,
  hourAt: string,
  online: number,
  players: number,
  peak: number,
  max: number,
) => ({
  server_id: serverId,
  hour_at: hourAt,
  online_minutes: online,
  player_minutes: players,
  peak_players: peak,
  max_players: max,
});
const minuteOf = (start: string, i: number) => iso(Date.parse(start) + i * MINUTE);

beforeAll(async () => {
  t = await buildTestApp();
  t.clock.set('2026-04-01T00:00:00.000Z');
  p = await createPersonas(t.app);
  approved = (await createApprovedServer(t.app, p.user, p.moderator)).id;
  pending = (await createServer(t.app, p.user)).id;
  t.clock.set('2026-04-10T22:00:30.000Z');
  young = (await createApprovedServer(t.app, p.user, p.moderator)).id;
  t.clock.set(NOW);

  const samples: SampleRow[] = [
    // Outside the 24h range on both sides: the day before, and the current (unfinished) minute.
    sample(approved, '2026-04-09T23:59:00.000Z', true, 99, 99),
    sample(approved, '2026-04-11T00:00:00.000Z', true, 99, 99),
  ];
  // 23:00-23:56 online with 10 of 20 players (30 of 40 at 23:10); 23:57-23:59 missing.
  for (let i = 0; i < 57; i += 1) {
    samples.push(
      sample(approved, minuteOf('2026-04-10T23:00:00.000Z', i), true, i === 10 ? 30 : 10, i === 10 ? 40 : 20),
    );
  }
  // young: online with 4 players for its first hour.
  for (let i = 0; i < 60; i += 1)
    samples.push(sample(young, minuteOf('2026-04-10T22:00:00.000Z', i), true, 4, 8));
  await seedSamples(t.app, samples);
  await seedRollups(t.app, [
    // In 30d only.
    rollup(approved, '2026-04-03T23:00:00.000Z', 60, 6000, 100, 200),
    // In 7d and 30d.
    rollup(approved, '2026-04-05T10:00:00.000Z', 60, 600, 15, 20),
    rollup(approved, '2026-04-05T11:00:00.000Z', 30, 120, 8, 20),
    // In 90d only (before the server was created: counted in the sums, not in the minutes).
    rollup(approved, '2026-03-01T00:00:00.000Z', 0, 0, 0, 0),
  ]);
});
afterAll(async () => t.close());

describe('GET /servers/:id/stats', () => {
  it('24h (the default) reads the samples of the last 1,440 whole minutes, in 5-minute points', async () => {
    const response = await get(approved);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['cache-control']).toBe('public, max-age=60');
    const full = { onlinePlayers: 10, maxPlayers: 20, online: true };
    expect(response.json()).toEqual({
      range: '24h',
      from: '2026-04-10T00:00:00.000Z',
      to: '2026-04-11T00:00:00.000Z',
      bucketMinutes: 5,
      points: [
        { at: '2026-04-10T23:00:00.000Z', ...full },
        { at: '2026-04-10T23:05:00.000Z', ...full },
        // 10 + 10 + 10 + 10 + 30 over 5 minutes.
        { at: '2026-04-10T23:10:00.000Z', onlinePlayers: 14, maxPlayers: 40, online: true },
        ...[15, 20, 25, 30, 35, 40, 45, 50].map((m) => ({ at: `2026-04-10T23:${m}:00.000Z`, ...full })),
        // 2 sampled minutes of 5: 20 player-minutes / 5, offline for most of the bucket.
        { at: '2026-04-10T23:55:00.000Z', onlinePlayers: 4, maxPlayers: 20, online: false },
      ],
      // 57 online minutes and 590 player-minutes over 1,440 minutes.
      uptime: 0.0396,
      peakPlayers: 30,
      averagePlayers: 0.41,
    });
    expect((await get(approved, '?range=24h')).json()).toEqual(response.json());
  });

  it('counts the minutes from the creation of a server younger than the range', async () => {
    expect((await get(young)).json()).toMatchObject({ uptime: 0.5, averagePlayers: 2, peakPlayers: 4 });
    // Only samples: nothing in the rollup ranges yet.
    expect((await get(young, '?range=7d')).json()).toMatchObject({
      points: [],
      uptime: 0,
      averagePlayers: 0,
    });
  });

  it('7d reads the hourly rollups (and none of the samples)', async () => {
    expect((await get(approved, '?range=7d')).json()).toEqual({
      range: '7d',
      from: '2026-04-04T00:00:00.000Z',
      to: '2026-04-11T00:00:00.000Z',
      bucketMinutes: 60,
      points: [
        { at: '2026-04-05T10:00:00.000Z', onlinePlayers: 10, maxPlayers: 20, online: true },
        // 120 player-minutes / 60; online 30 minutes of 60.
        { at: '2026-04-05T11:00:00.000Z', onlinePlayers: 2, maxPlayers: 20, online: true },
      ],
      // 90 online minutes, 720 player-minutes over 10,080 minutes.
      uptime: 0.0089,
      peakPlayers: 15,
      averagePlayers: 0.07,
    });
  });

  it('30d and 90d count only the minutes since the server was created', async () => {
    // 10 days since creation: 14,400 minutes; 150 online, 6,720 player-minutes.
    expect((await get(approved, '?range=30d')).json()).toMatchObject({
      from: '2026-03-12T00:00:00.000Z',
      uptime: 0.0104,
      averagePlayers: 0.47,
      peakPlayers: 100,
    });
    const ninety = (await get(approved, '?range=90d')).json() as { points: unknown[]; uptime: number };
    expect(ninety.points).toHaveLength(4);
    expect(ninety.uptime).toBe(0.0104);
  });

  it('has no data for a server that never reported', async () => {
    const response = await get(pending, '', p.user);
    expect(response.headers['cache-control']).toBe('private, no-cache');
    expect(response.json()).toMatchObject({ points: [], uptime: 0, peakPlayers: 0, averagePlayers: 0 });
  });

  it('is 404 for a server the caller may not see, like GET /servers/:id', async () => {
    expectError(await get(pending), 404);
    expectError(await get(pending, '?range=30d', p.stranger), 404);
    expect((await get(pending, '', p.moderator)).statusCode).toBe(200);
    expectError(await get('0192c0de-0000-7000-8000-000000000000'), 404);
  });

  it.each(['?range=1y', '?range=24H', '?range=', '?range=7d&range=30d', '?range=7', '?range=24h%00'])(
    'is 400 for %s',
    async (query) => {
      expectError(await get(approved, query), 400);
    },
  );

  it('is 400 for an id that cannot be one', async () => {
    expectError(await get('x'.repeat(65)), 400);
  });

  it('is documented in /openapi.json', async () => {
    const document = await loadOpenApi(t.app);
    const operation = document.paths['/servers/{id}/stats']?.['get'] as
      | {
          operationId: string;
          tags: string[];
          parameters: Array<{ name: string; schema: { enum?: string[] } }>;
        }
      | undefined;
    expect(operation).toMatchObject({ operationId: 'getServerStats', tags: ['servers'] });
    expect(operation!.parameters.find((param) => param.name === 'range')?.schema.enum).toEqual([
      '24h',
      '7d',
      '30d',
      '90d',
    ]);
    expect(Object.keys((operation as unknown as { responses: object }).responses)).toEqual(
      expect.arrayContaining(['200', '400', '404']),
    );
  });
});
