// GET /servers: only APPROVED servers, search, category and tag filters, the three sorts, paging and totals.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas } from '../helpers/factories.js';
import type { Personas } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import {
  catalogs,
  createApprovedServer,
  createServer,
  expectServerInvariants,
  moderate,
  recomputeRanks,
  reportStatus,
} from './helpers.js';
import type { CatalogRef, ServerBody } from './helpers.js';

interface ListBody {
  servers: Array<ServerBody & { description?: unknown }>;
  total: number;
  meta: { total: number; limit: number; offset: number };
}

let t: TestApp;
let p: Personas;
let seeded: { tags: CatalogRef[]; categories: CatalogRef[] };
/** Approved servers by name: alpha (30 players), bravo (10), charlie (10, newer), delta (never reported). */
const approved: Record<string, ServerBody> = {};
const hidden: ServerBody[] = [];

async function list(query = ''): Promise<ListBody> {
  const response = await t.app.inject({ method: 'GET', url: `/servers${query}` });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as ListBody;
}
const names = (body: ListBody) => body.servers.map((server) => server.name);

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
  seeded = await catalogs(t.app);
  const [survival, pvp, minigames] = seeded.categories;
  const [tagA, tagB, tagC] = seeded.tags;
  const specs: Array<[string, Record<string, unknown>, number]> = [
    [
      'Alpha 100% Survival',
      { shortDescription: 'Long-running world', categoryIds: [survival!.id], tagIds: [tagA!.id] },
      30,
    ],
    ['Bravo PvP', { shortDescription: 'Arena_fights daily', categoryIds: [pvp!.id], tagIds: [tagB!.id] }, 10],
    ['Charlie Games', { categoryIds: [minigames!.id, pvp!.id], tagIds: [tagA!.id, tagC!.id] }, 10],
    ['Delta Quiet', {}, -1],
  ];
  const reports: Array<[string, number]> = [];
  for (const [name, body, players] of specs) {
    t.clock.advance(60_000);
    const server = await createApprovedServer(t.app, p.user, p.moderator, { name, ...body });
    if (players >= 0) reports.push([server.id, players]);
    approved[name.split(' ')[0]!.toLowerCase()] = server;
  }
  // Servers the public must never see, one per non-approved status.
  t.clock.advance(60_000);
  hidden.push(await createServer(t.app, p.user, { name: 'Hidden pending', categoryIds: [survival!.id] }));
  const rejected = await createServer(t.app, p.user, { name: 'Hidden rejected' });
  await moderate(t.app, p.moderator, rejected.id, 'reject');
  const suspended = await createApprovedServer(t.app, p.user, p.moderator, { name: 'Hidden suspended' });
  await reportStatus(t.app, p.user, suspended.id, { online: true, onlinePlayers: 99, maxPlayers: 100 });
  await moderate(t.app, p.moderator, suspended.id, 'suspend');
  hidden.push(rejected, suspended);
  // Reported last: a server is online only while its last report is younger than 3 minutes.
  for (const [serverId, players] of reports) {
    await reportStatus(t.app, p.user, serverId, { online: true, onlinePlayers: players, maxPlayers: 100 });
  }
  await recomputeRanks(t.app);
});
afterAll(async () => t.close());
afterEach(async () => expectServerInvariants(t.app));

describe('GET /servers', () => {
  it('lists APPROVED servers only, by rank by default, with total and meta', async () => {
    const body = await list();
    expect(names(body)).toEqual(['Alpha 100% Survival', 'Bravo PvP', 'Charlie Games', 'Delta Quiet']);
    expect(body.servers.map((server) => server.rank)).toEqual([1, 2, 3, 4]);
    expect(body.total).toBe(4);
    expect(body.meta).toEqual({ total: 4, limit: 20, offset: 0, totalExact: true });
    for (const server of hidden) expect(body.servers.map((s) => s.id)).not.toContain(server.id);
    expect(body.servers.every((server) => server.status === 'APPROVED')).toBe(true);
  });

  it('shows list items with owner, tags and categories but without the description', async () => {
    const [first] = (await list()).servers;
    expect(first).toMatchObject({
      id: approved['alpha']!.id,
      onlinePlayers: 30,
      maxPlayers: 100,
      online: true,
      owner: { type: 'USER', id: p.user.id, username: p.user.username },
      categories: [seeded.categories[0]],
      tags: [seeded.tags[0]],
    });
    expect(first).not.toHaveProperty('description');
    expect(first).not.toHaveProperty('statusReason');
  });

  it('sorts by players (then oldest first) and by newest', async () => {
    expect(names(await list('?sort=players'))).toEqual([
      'Alpha 100% Survival',
      'Bravo PvP',
      'Charlie Games',
      'Delta Quiet',
    ]);
    expect(names(await list('?sort=newest'))).toEqual([
      'Delta Quiet',
      'Charlie Games',
      'Bravo PvP',
      'Alpha 100% Survival',
    ]);
  });

  it('ranks a server at approval, placed by its score (a new one last)', async () => {
    t.clock.advance(60_000);
    const fresh = await createApprovedServer(t.app, p.stranger, p.moderator, { name: 'Echo Fresh' });
    await reportStatus(t.app, p.stranger, fresh.id, { online: true, onlinePlayers: 500, maxPlayers: 500 });
    try {
      const body = await list('?sort=rank');
      expect(names(body).at(-1)).toBe('Echo Fresh');
      expect(body.servers.at(-1)!.rank).toBe(body.servers.length);
      // …but the players sort is live.
      expect(names(await list('?sort=players'))[0]).toBe('Echo Fresh');
    } finally {
      await t.app.inject({ method: 'DELETE', url: `/servers/${fresh.id}`, headers: p.stranger.headers });
    }
  });

  it('pages with limit and offset', async () => {
    const first = await list('?limit=2');
    const second = await list('?limit=2&offset=2');
    const beyond = await list('?limit=2&offset=10');
    expect(names(first)).toEqual(['Alpha 100% Survival', 'Bravo PvP']);
    expect(names(second)).toEqual(['Charlie Games', 'Delta Quiet']);
    expect(beyond.servers).toEqual([]);
    expect([first.total, second.total, beyond.total]).toEqual([4, 4, 4]);
    expect(second.meta).toEqual({ total: 4, limit: 2, offset: 2, totalExact: true });
  });

  it.each(['?limit=0', '?limit=101', '?offset=-1', '?sort=popular', '?limit=abc'])(
    'rejects %s (400)',
    async (query) => {
      expectError(await t.app.inject({ method: 'GET', url: `/servers${query}` }), 400, 'INVALID_REQUEST');
    },
  );

  it('accepts limit 100', async () => {
    expect((await list('?limit=100')).meta.limit).toBe(100);
  });

  // Full-text semantics (issue 17; test/search/servers-search.test.ts has the rest): words of letters and digits,
  // so punctuation alone is no search at all.
  it('searches name and short description case-insensitively, punctuation only meaning no search', async () => {
    expect(names(await list('?search=ALPHA'))).toEqual(['Alpha 100% Survival']);
    expect(names(await list('?search=long-RUNNING'))).toEqual(['Alpha 100% Survival']);
    expect(names(await list(`?search=${encodeURIComponent('100%')}`))).toEqual(['Alpha 100% Survival']);
    expect((await list(`?search=${encodeURIComponent('%')}`)).total).toBe(4);
    expect(names(await list('?search=arena_')).length).toBe(1);
    expect((await list('?search=a_e')).servers).toEqual([]);
    expect((await list('?search=hidden')).total).toBe(0);
    const blank = await list('?search=%20%20');
    expect(blank.total).toBe(4);
  });

  it('filters by categories: servers in at least one of them; total counts the matches', async () => {
    const [survival, pvp, minigames] = seeded.categories;
    const pvpOnly = await list(`?categories=${pvp!.id}`);
    expect(names(pvpOnly)).toEqual(['Bravo PvP', 'Charlie Games']);
    expect(pvpOnly.total).toBe(2);
    expect(pvpOnly.meta.total).toBe(2);
    // Comma-separated and repeated forms are the same list.
    expect(names(await list(`?categories=${survival!.id},${minigames!.id}`))).toEqual([
      'Alpha 100% Survival',
      'Charlie Games',
    ]);
    expect(names(await list(`?categories=${survival!.id}&categories=${minigames!.id}`))).toEqual([
      'Alpha 100% Survival',
      'Charlie Games',
    ]);
  });

  it('filters by tags, and by tags and categories together', async () => {
    const [tagA, tagB] = seeded.tags;
    const [, pvp] = seeded.categories;
    expect(names(await list(`?tags=${tagA!.id}`))).toEqual(['Alpha 100% Survival', 'Charlie Games']);
    expect(names(await list(`?tags=${tagA!.id},${tagB!.id}&sort=newest`))).toEqual([
      'Charlie Games',
      'Bravo PvP',
      'Alpha 100% Survival',
    ]);
    const both = await list(`?tags=${tagA!.id}&categories=${pvp!.id}`);
    expect(names(both)).toEqual(['Charlie Games']);
    expect(both.total).toBe(1);
    const withSearch = await list(`?tags=${tagA!.id}&search=games&limit=1`);
    expect(withSearch.total).toBe(1);
  });

  it('matches nothing for unknown ids, and refuses more than 50 of them', async () => {
    expect((await list('?tags=01900000-0000-7000-8000-000000000000')).total).toBe(0);
    const many = Array.from({ length: 51 }, (_, i) => `id-${i}`).join(',');
    expectError(await t.app.inject({ method: 'GET', url: `/servers?tags=${many}` }), 400);
  });

  it('drops a server from the public list as soon as it leaves APPROVED', async () => {
    const server = await createApprovedServer(t.app, p.stranger, p.moderator, { name: 'Foxtrot Gone' });
    expect(names(await list('?sort=newest'))[0]).toBe('Foxtrot Gone');
    await moderate(t.app, p.moderator, server.id, 'suspend');
    expect(names(await list('?sort=newest'))).not.toContain('Foxtrot Gone');
    expect((await list()).total).toBe(4);
    await t.app.inject({ method: 'DELETE', url: `/servers/${server.id}`, headers: p.stranger.headers });
  });
});

describe('cached directory pages', () => {
  it('answers an unchanged page with the same ETag, and 304 to If-None-Match', async () => {
    const first = await t.app.inject({ method: 'GET', url: '/servers' });
    const second = await t.app.inject({ method: 'GET', url: '/servers' });
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(second.body).toBe(first.body);
    expect(second.headers['etag']).toBe(first.headers['etag']);
    expect(first.headers['etag']).toMatch(/^W\/"/);
    const unchanged = await t.app.inject({
      method: 'GET',
      url: '/servers',
      headers: { 'if-none-match': first.headers['etag'] as string },
    });
    expect(unchanged.statusCode).toBe(304);
    expect(unchanged.body).toBe('');
  });

  it('shows moderation, edits, images, transfers, catalog edits and new ranks at once', async () => {
    const server = await createApprovedServer(t.app, p.stranger, p.moderator, {
      name: 'Golf Cached',
      tagIds: [seeded.tags[3]!.id],
    });
    const newest = async () => (await list('?sort=newest')).servers[0]!;
    expect((await newest()).name).toBe('Golf Cached');
    await t.app.inject({
      method: 'PATCH',
      url: `/servers/${server.id}`,
      headers: p.stranger.headers,
      payload: { name: 'Golf Renamed' },
    });
    expect((await newest()).name).toBe('Golf Renamed');
    await t.app.inject({
      method: 'PATCH',
      url: `/server-tags/${seeded.tags[3]!.id}`,
      headers: p.admin.headers,
      payload: { name: 'Renamed tag' },
    });
    expect((await newest()).tags[0]!.name).toBe('Renamed tag');
    await t.app.inject({
      method: 'POST',
      url: `/servers/${server.id}/transfer-ownership`,
      headers: p.stranger.headers,
      payload: { newOwnerId: p.user.id, ownerType: 'USER' },
    });
    expect((await newest()).ownerId).toBe(p.user.id);
    expect((await newest()).rank).toBe(5);
    await recomputeRanks(t.app);
    expect((await newest()).rank).toBe(5);
    await moderate(t.app, p.moderator, server.id, 'suspend');
    expect((await newest()).name).not.toBe('Golf Renamed');
    await t.app.inject({ method: 'DELETE', url: `/servers/${server.id}`, headers: p.user.headers });
    await t.app.inject({
      method: 'PATCH',
      url: `/server-tags/${seeded.tags[3]!.id}`,
      headers: p.admin.headers,
      payload: { name: seeded.tags[3]!.name },
    });
  });

  it('shows live player counts within 5 seconds', async () => {
    const alpha = approved['alpha']!;
    const players = async () => (await list()).servers.find((s) => s.id === alpha.id)!.onlinePlayers;
    expect(await players()).toBe(30);
    await reportStatus(t.app, p.user, alpha.id, { online: true, onlinePlayers: 31, maxPlayers: 100 });
    t.clock.advance(5001);
    expect(await players()).toBe(31);
    await reportStatus(t.app, p.user, alpha.id, { online: true, onlinePlayers: 30, maxPlayers: 100 });
    t.clock.advance(5001);
    expect(await players()).toBe(30);
  });
});
