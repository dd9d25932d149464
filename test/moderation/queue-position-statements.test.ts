// The queue position of a PENDING item is one prepared statement (issue 18: a contributor's read of a PENDING
// resource was the slowest authenticated read on PostgreSQL, two round trips and three statements for the
// position alone). Statements are counted through /metrics, so a position that goes back to several reads fails
// here; the positions and totals are checked against the moderation lists' oldest-first order for several
// pending items of each kind, with items of other statuses and tied waiting-since times among them.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { addContributor, createResource, moderate as moderateResource } from '../resources/helpers.js';
import { createServer, moderate as moderateServer } from '../servers/helpers.js';
import { createTeam } from '../teams/helpers.js';
import { act, versionIn, versionUrl } from '../versions/helpers.js';
import { statementsOf as countStatements } from '../helpers/statements.js';

const HOUR = 3_600_000;
/**
 * What a kept value costs: nothing on SQLite (its change signal is local), the change fence on PostgreSQL (one
 * tiny statement, shared by every request that arrives while it runs: one per request in these sequential tests).
 */
const KEPT = process.env['TEST_DATABASE_URL'] !== undefined ? 1 : 0;
const DAY = 24 * HOUR;

interface Position {
  position: number;
  total: number;
  estimatedReviewAt: string | null;
}

let t: TestApp;
let owner: TestUser;
let contributor: TestUser;
let moderator: TestUser;
let t0: number;
const set = (ms: number) => t.clock.set(new Date(ms));

beforeAll(async () => {
  t = await buildTestApp({ METRICS: 'on' });
  [owner, contributor, moderator] = await Promise.all([
    createUser(t.app),
    createUser(t.app),
    createUser(t.app, { role: 'MODERATOR' }),
  ]);
  t0 = Math.ceil((Date.now() + DAY) / DAY) * DAY;
});
afterAll(async () => t.close());

async function get(url: string, user: TestUser) {
  const response = await t.app.inject({ method: 'GET', url, headers: user.headers });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { id: string; moderation?: Position };
}

const statementsOf = (request: () => Promise<unknown>) => countStatements(t, request);

/** The ids of a moderation list of PENDING items, in its order (oldest first). */
async function pendingList(url: string, field: 'resources' | 'servers'): Promise<string[]> {
  const body = (await get(`${url}?limit=100`, moderator)) as unknown as Record<string, Array<{ id: string }>>;
  return body[field]!.map((item) => item.id);
}

describe('statements of a contributor’s read of a PENDING resource', () => {
  it('by slug: the key, the resource, the access facts and the queue position — one statement each', async () => {
    set(t0);
    const older = await createResource(t.app, owner);
    set(t0 + 1000);
    const pending = await createResource(t.app, owner);
    await addContributor(t.app, owner, pending.id, contributor, 'CONTRIBUTOR');
    const url = `/resources/slug/${pending.slug}`;
    // Once before: the credential's first use and the statistics (kept a minute) are not what is counted.
    const first = await get(url, contributor);
    expect(first.moderation).toMatchObject({ position: 2, total: 2 });
    let read: { moderation?: Position } | undefined;
    // Read again with nothing changed: the position is kept (core/db/change-cache.ts).
    const kept = await statementsOf(async () => {
      read = await get(url, contributor);
    });
    expect(read?.moderation).toEqual(first.moderation);
    expect(kept).toBe(3 + KEPT);
    // The item ahead is reviewed: the next read counts again (one statement) and shows the new place.
    await moderateResource(t.app, moderator, older.id, 'APPROVE');
    const count = await statementsOf(async () => {
      read = await get(url, contributor);
    });
    expect(read?.moderation).toMatchObject({ position: 1, total: 1 });
    // Before issue 18 the position alone was three (waiting-since, then the count ahead and the counter): 6.
    // On PostgreSQL the fence that saw the change comes on top.
    expect(count).toBe(4 + KEPT);
  });

  it('of a team-owned resource (the benchmark’s case): the same four', async () => {
    const team = await createTeam(t.app, owner);
    set(t0 + 2000);
    const pending = await createResource(t.app, owner, { ownerType: 'TEAM', ownerId: team.id });
    await addContributor(t.app, owner, pending.id, contributor, 'CONTRIBUTOR');
    const url = `/resources/slug/${pending.slug}`;
    await get(url, contributor);
    let read: { moderation?: Position } | undefined;
    const count = await statementsOf(async () => {
      read = await get(url, contributor);
    });
    expect(read?.moderation).toMatchObject({ position: 2, total: 2 });
    // Nothing changed since the first read: the position is kept.
    expect(count).toBe(3 + KEPT);
  });

  it('the statistics are not read again within their minute; once expired, the read still answers', async () => {
    const pending = await createResource(t.app, owner);
    const url = `/resources/${pending.id}`;
    await get(url, owner);
    // The owner side, read again: the key and the resource (a user owner's rights cost no statement; the
    // position is kept).
    expect(await statementsOf(() => get(url, owner))).toBe(2 + KEPT);
    t.clock.advance(60_000);
    // Expired: the statistics are recomputed, then kept again.
    expect(await statementsOf(() => get(url, owner))).toBeGreaterThan(2 + KEPT);
    expect(await statementsOf(() => get(url, owner))).toBe(2 + KEPT);
  });
});

describe('positions and totals of several pending items of each kind', () => {
  it('resources: each at its place in the moderation list, among approved and rejected ones', async () => {
    set(t0 + DAY);
    const created: string[] = [];
    for (const [i, at] of [0, 1000, 1000, 1000, 2000, 3000, 3000].entries()) {
      set(t0 + DAY + at);
      const resource = await createResource(t.app, i % 2 === 0 ? owner : contributor);
      created.push(resource.id);
    }
    await moderateResource(t.app, moderator, created[1]!, 'APPROVE');
    await moderateResource(t.app, moderator, created[4]!, 'REJECT', 'No');
    const queue = await pendingList('/resources/moderation/status/PENDING', 'resources');
    expect(queue).toEqual(expect.arrayContaining(created.filter((_, i) => i !== 1 && i !== 4)));
    for (const [index, id] of queue.entries()) {
      expect((await get(`/resources/${id}`, moderator)).moderation, id).toEqual({
        position: index + 1,
        total: queue.length,
        estimatedReviewAt: expect.any(String),
      });
    }
    for (const id of [created[1]!, created[4]!]) {
      expect((await get(`/resources/${id}`, owner)).moderation, id).toBeUndefined();
    }
  });

  it('resources: the position is never past the total when the counter lags the rows', async () => {
    const { db } = t.app.context.database;
    const queue = await pendingList('/resources/moderation/status/PENDING', 'resources');
    const last = queue.at(-1)!;
    await sql`update counters set value = value - 2 where name = 'resources.status.PENDING'`.execute(db);
    try {
      const shown = (await get(`/resources/${last}`, moderator)).moderation;
      expect(shown).toMatchObject({ position: queue.length, total: queue.length });
      const second = (await get(`/resources/${queue[1]}`, moderator)).moderation;
      expect(second).toMatchObject({ position: 2, total: queue.length - 2 });
    } finally {
      await sql`update counters set value = value + 2 where name = 'resources.status.PENDING'`.execute(db);
    }
  });

  it('versions: across resources, by submission time and then id, with the median estimate', async () => {
    set(t0 + 2 * DAY);
    const hosts = [await createResource(t.app, owner), await createResource(t.app, owner)];
    for (const host of hosts) {
      await moderateResource(t.app, moderator, host.id, 'APPROVE');
      await addContributor(t.app, owner, host.id, contributor, 'CONTRIBUTOR');
    }
    const actors = { editor: owner, moderator };
    const submitted: Array<{ host: string; id: string; at: number }> = [];
    for (const [i, at] of [1000, 2000, 2000, 3000, 4000].entries()) {
      set(t0 + 2 * DAY + at);
      const host = hosts[i % 2]!.id;
      submitted.push({ host, id: (await versionIn(t.app, actors, host, 'PENDING')).id, at });
    }
    // One reviewed after an hour: the median for the estimates; the others keep their order.
    set(t0 + 2 * DAY + 1000 + HOUR);
    const [reviewed, ...queue] = submitted;
    await act(t.app, moderator, reviewed!.host, reviewed!.id, 'approve');
    queue.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1));
    const now = t.clock.now().getTime();
    for (const [index, version] of queue.entries()) {
      const read = await get(versionUrl(version.host, version.id), contributor);
      expect(read.moderation, version.id).toEqual({
        position: index + 1,
        total: queue.length,
        estimatedReviewAt: new Date(Math.max(t0 + 2 * DAY + version.at + HOUR, now)).toISOString(),
        duplicateFiles: 0,
      });
    }
    expect((await get(versionUrl(reviewed!.host, reviewed!.id), owner)).moderation).toBeUndefined();
  });

  it('servers: each at its place in the moderation list, among approved and rejected ones', async () => {
    const start = t0 + 3 * DAY;
    const created: Array<{ id: string; at: number }> = [];
    for (const at of [0, 1000, 1000, 2000, 2000, 3000]) {
      set(start + at);
      created.push({ id: (await createServer(t.app, owner)).id, at });
    }
    set(start + 2 * HOUR);
    await moderateServer(t.app, moderator, created[0]!.id, 'approve');
    await moderateServer(t.app, moderator, created[3]!.id, 'reject');
    const waiting = created.filter((_, i) => i !== 0 && i !== 3);
    const queue = await pendingList('/servers/moderation/status/PENDING', 'servers');
    expect([...queue].sort()).toEqual(waiting.map((server) => server.id).sort());
    // Two reviews, of 7,200 s and 7,198 s: the median is 7,199 s after each one's last status change.
    const now = t.clock.now().getTime();
    for (const [index, id] of queue.entries()) {
      const { at } = waiting.find((server) => server.id === id)!;
      expect((await get(`/servers/${id}`, owner)).moderation, id).toEqual({
        position: index + 1,
        total: queue.length,
        estimatedReviewAt: new Date(Math.max(start + at + 7_199_000, now)).toISOString(),
      });
    }
    expect((await get(`/servers/${created[3]!.id}`, owner)).moderation).toBeUndefined();
  });
});
