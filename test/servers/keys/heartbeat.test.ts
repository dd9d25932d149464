// POST /servers/heartbeat and the 3-minute online rule (spec/extensions.md §3).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { createPersonas } from '../../helpers/factories.js';
import type { Personas } from '../../helpers/factories.js';
import { expectError } from '../../helpers/http.js';
import { readAllEvents } from '../../events/helpers/feed.js';
import { createApprovedServer, createServer, getServer, reportStatus } from '../helpers.js';
import type { ServerBody } from '../helpers.js';
import { createKey, sendHeartbeat } from './helpers.js';

interface LiveServer extends ServerBody {
  version: string | null;
  motd: string | null;
  latencyMs: number | null;
  lastHeartbeatAt: string | null;
}

let t: TestApp;
let p: Personas;

beforeAll(async () => {
  // Events are read through GET /events at once; the PostgreSQL settle window would hold the newest back.
  t = await buildTestApp({ EVENT_FEED_SETTLE_MS: '0' });
  p = await createPersonas(t.app);
});
afterAll(async () => t.close());

const sweep = async () =>
  expect(await t.app.context.scheduler.runNow('mark-silent-servers-offline')).toBe(true);
const live = async (server: ServerBody) => (await getServer(t.app, server.slug, p.user)) as LiveServer;
const onlineEvents = (serverId: string) =>
  readAllEvents(t.app, p.user, { serverId, types: ['server.went_online', 'server.went_offline'] });

/** A server of p.user with one key; the clock moved past any earlier heartbeat window. */
async function keyedServer(approved = true) {
  const server = approved
    ? await createApprovedServer(t.app, p.user, p.moderator)
    : await createServer(t.app, p.user);
  const key = await createKey(t.app, p.user, server.id);
  return { server, key: key.key, keyId: key.id };
}

describe('POST /servers/heartbeat', () => {
  it('accepts a heartbeat: 200 body, and the server shows players, version, motd, latency', async () => {
    const { server, key } = await keyedServer();
    t.clock.advance(1000);
    const response = await sendHeartbeat(t.app, key, {
      onlinePlayers: 12,
      maxPlayers: 100,
      version: '1.21.4',
      motd: '§aWelcome\u0007 to §lthe\u202e server\r\nline two\nline three',
      latencyMs: 42,
    });
    expect(response.statusCode, response.body).toBe(200);
    const now = t.clock.now();
    expect(response.json()).toEqual({
      serverId: server.id,
      online: true,
      nextHeartbeatAfter: new Date(now.getTime() + 30_000).toISOString(),
    });
    expect(await live(server)).toMatchObject({
      online: true,
      onlinePlayers: 12,
      maxPlayers: 100,
      version: '1.21.4',
      motd: 'Welcome to the server\nline two',
      latencyMs: 42,
      lastHeartbeatAt: now.toISOString(),
      lastReportedAt: now.toISOString(),
      // A heartbeat is not an edit.
      updatedAt: server.updatedAt,
    });
    // Each heartbeat is a full snapshot: omitted fields become null.
    t.clock.advance(30_000);
    expect((await sendHeartbeat(t.app, key, { onlinePlayers: 0, maxPlayers: 100 })).statusCode).toBe(200);
    expect(await live(server)).toMatchObject({
      onlinePlayers: 0,
      version: null,
      motd: null,
      latencyMs: null,
    });
  });

  it('works for a server that is not approved yet (owners set up before approval)', async () => {
    const { server, key } = await keyedServer(false);
    expect((await sendHeartbeat(t.app, key)).statusCode).toBe(200);
    expect(await live(server)).toMatchObject({ status: 'PENDING', online: true, onlinePlayers: 3 });
  });

  it('refuses a missing, malformed, unknown or user key with 401 in the one error shape', async () => {
    const { key } = await keyedServer();
    const unknown = `sk_${'A'.repeat(40)}`;
    for (const presented of [undefined, '', 'sk_short', `${key}x`, key.replace('sk_', 'mk_'), unknown]) {
      const body = expectError(await sendHeartbeat(t.app, presented), 401, 'UNAUTHORIZED');
      expect(body.message).not.toContain(key);
    }
    // The key is checked before the body: no key and a bad body is still a 401.
    expectError(await sendHeartbeat(t.app, undefined, { onlinePlayers: -1 }), 401, 'UNAUTHORIZED');
    // A user's API key is not a server key, in either header.
    expectError(await sendHeartbeat(t.app, p.user.apiKey), 401, 'UNAUTHORIZED');
    expectError(await sendHeartbeat(t.app, undefined, undefined, p.user.headers), 401, 'UNAUTHORIZED');
    // None of them counted as a heartbeat.
    expect((await sendHeartbeat(t.app, key)).statusCode).toBe(200);
  });

  it.each([
    ['onlinePlayers above maxPlayers', { onlinePlayers: 21, maxPlayers: 20 }],
    ['negative players', { onlinePlayers: -1, maxPlayers: 20 }],
    ['fractional players', { onlinePlayers: 1.5, maxPlayers: 20 }],
    ['players as strings', { onlinePlayers: '3', maxPlayers: '20' }],
    ['missing maxPlayers', { onlinePlayers: 3 }],
    ['absurd capacity', { onlinePlayers: 0, maxPlayers: 10_000_001 }],
    ['a huge number', { onlinePlayers: 0, maxPlayers: 1e300 }],
    ['a motd of 257 characters', { onlinePlayers: 0, maxPlayers: 1, motd: 'm'.repeat(257) }],
    ['a version of 65 characters', { onlinePlayers: 0, maxPlayers: 1, version: 'v'.repeat(65) }],
    ['latency above 60000', { onlinePlayers: 0, maxPlayers: 1, latencyMs: 60_001 }],
    ['negative latency', { onlinePlayers: 0, maxPlayers: 1, latencyMs: -1 }],
  ])('rejects %s (400) and records nothing', async (_label, payload) => {
    const { server, key } = await keyedServer();
    expectError(await sendHeartbeat(t.app, key, payload), 400, 'INVALID_REQUEST');
    expect(await live(server)).toMatchObject({ lastHeartbeatAt: null, lastReportedAt: null, online: false });
  });

  it('drops fields it does not know (no mass assignment): the server and flags stay its own', async () => {
    const { server, key } = await keyedServer(false);
    const other = await createServer(t.app, p.user);
    const response = await sendHeartbeat(t.app, key, {
      onlinePlayers: 2,
      maxPlayers: 5,
      serverId: other.id,
      online: false,
      status: 'APPROVED',
      rank: 1,
      lastReportedAt: '2000-01-01T00:00:00.000Z',
    });
    expect(response.json()).toMatchObject({ serverId: server.id, online: true });
    expect(await live(server)).toMatchObject({
      online: true,
      onlinePlayers: 2,
      rank: null,
      status: 'PENDING',
      lastReportedAt: t.clock.now().toISOString(),
    });
    expect(await live(other)).toMatchObject({ online: false, lastHeartbeatAt: null, status: 'PENDING' });
  });

  it('accepts one heartbeat per 30 s: 429 RATE_LIMITED with Retry-After until 30 s have passed', async () => {
    const { server, key } = await keyedServer();
    expect((await sendHeartbeat(t.app, key, { onlinePlayers: 1, maxPlayers: 10 })).statusCode).toBe(200);
    const acceptedAt = t.clock.now().toISOString();
    t.clock.advance(10_000);
    const early = await sendHeartbeat(t.app, key, { onlinePlayers: 2, maxPlayers: 10 });
    expect(expectError(early, 429, 'RATE_LIMITED').details).toEqual({ retryAfterSeconds: 20 });
    expect(early.headers['retry-after']).toBe('20');
    t.clock.advance(19_999);
    const justBefore = await sendHeartbeat(t.app, key, { onlinePlayers: 2, maxPlayers: 10 });
    expectError(justBefore, 429, 'RATE_LIMITED');
    expect(justBefore.headers['retry-after']).toBe('1');
    expect(await live(server)).toMatchObject({ onlinePlayers: 1, lastHeartbeatAt: acceptedAt });
    t.clock.advance(1);
    expect((await sendHeartbeat(t.app, key, { onlinePlayers: 2, maxPlayers: 10 })).statusCode).toBe(200);
    expect(await live(server)).toMatchObject({ onlinePlayers: 2 });
  });

  it('counts the 30 s per server, whichever of its keys is used', async () => {
    const { server, key } = await keyedServer();
    const second = await createKey(t.app, p.user, server.id, 'second');
    expect((await sendHeartbeat(t.app, key)).statusCode).toBe(200);
    expectError(await sendHeartbeat(t.app, second.key), 429, 'RATE_LIMITED');
  });

  it('of 10 concurrent heartbeats accepts exactly one', async () => {
    const { server, key } = await keyedServer();
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => sendHeartbeat(t.app, key, { onlinePlayers: i, maxPlayers: 10 })),
    );
    expect(responses.map((r) => r.statusCode).sort()).toEqual([200, ...Array<number>(9).fill(429)]);
    const winner = responses.findIndex((r) => r.statusCode === 200);
    expect(await live(server)).toMatchObject({ online: true, onlinePlayers: winner });
    expect((await onlineEvents(server.id)).map((e) => e.type)).toEqual(['server.went_online']);
  });

  it("moves the key's lastUsedAt at most once a minute", async () => {
    const { server, key } = await keyedServer();
    const lastUsed = async () =>
      (
        (
          await t.app.inject({ method: 'GET', url: `/servers/${server.id}/keys`, headers: p.user.headers })
        ).json() as {
          keys: Array<{ lastUsedAt: string | null }>;
        }
      ).keys[0]!.lastUsedAt;
    expect(await lastUsed()).toBeNull();
    expect((await sendHeartbeat(t.app, key)).statusCode).toBe(200);
    const first = t.clock.now().toISOString();
    expect(await lastUsed()).toBe(first);
    t.clock.advance(30_000);
    expect((await sendHeartbeat(t.app, key)).statusCode).toBe(200);
    expect(await lastUsed()).toBe(first);
    t.clock.advance(30_000);
    expect((await sendHeartbeat(t.app, key)).statusCode).toBe(200);
    expect(await lastUsed()).toBe(t.clock.now().toISOString());
  });
});

describe('the 3-minute online rule', () => {
  it('goes offline exactly at last heartbeat + 3 min, dated at the boundary; a heartbeat brings it back', async () => {
    const { server, key } = await keyedServer();
    expect((await sendHeartbeat(t.app, key, { onlinePlayers: 7, maxPlayers: 50 })).statusCode).toBe(200);
    const lastAt = t.clock.now().getTime();
    const boundary = new Date(lastAt + 3 * 60_000).toISOString();

    t.clock.set(new Date(lastAt + 3 * 60_000 - 1));
    await sweep();
    expect(await live(server)).toMatchObject({ online: true, onlinePlayers: 7 });

    // The job runs later than the boundary; the event still says when the server stopped counting as online.
    t.clock.set(new Date(lastAt + 3 * 60_000 + 9_000));
    await sweep();
    expect(await live(server)).toMatchObject({ online: false, onlinePlayers: 0, maxPlayers: 50 });
    await sweep();

    t.clock.advance(5_000);
    expect((await sendHeartbeat(t.app, key, { onlinePlayers: 4, maxPlayers: 50 })).statusCode).toBe(200);
    const backAt = t.clock.now().toISOString();
    expect(await live(server)).toMatchObject({ online: true, onlinePlayers: 4 });

    const events = await onlineEvents(server.id);
    expect(events.map((e) => [e.type, e.createdAt, e.actor, e.data])).toEqual([
      [
        'server.went_online',
        new Date(lastAt).toISOString(),
        null,
        { onlinePlayers: 7, maxPlayers: 50, cause: 'HEARTBEAT' },
      ],
      ['server.went_offline', boundary, null, { cause: 'SILENT' }],
      ['server.went_online', backAt, null, { onlinePlayers: 4, maxPlayers: 50, cause: 'HEARTBEAT' }],
    ]);
  });

  it('keeps a server online while heartbeats arrive, and counts status reports as reports too', async () => {
    const { server, key } = await keyedServer();
    for (let i = 0; i < 8; i++) {
      expect((await sendHeartbeat(t.app, key)).statusCode).toBe(200);
      t.clock.advance(60_000);
      await sweep();
    }
    // An owner's status report also resets the 3 minutes.
    await reportStatus(t.app, p.user, server.id, { online: true, onlinePlayers: 9, maxPlayers: 20 });
    t.clock.advance(3 * 60_000 - 1);
    await sweep();
    expect(await live(server)).toMatchObject({ online: true, onlinePlayers: 9 });
    t.clock.advance(1);
    await sweep();
    expect(await live(server)).toMatchObject({ online: false });
    expect((await onlineEvents(server.id)).map((e) => e.type)).toEqual([
      'server.went_online',
      'server.went_offline',
    ]);
  });

  it('shows a flip in the cached public list at once; player counts follow within the cache expiry', async () => {
    const { server, key } = await keyedServer();
    const listed = async () => {
      const response = await t.app.inject({ method: 'GET', url: '/servers?sort=newest&limit=100' });
      return (response.json() as { servers: ServerBody[] }).servers.find((s) => s.id === server.id)!;
    };
    expect(await listed()).toMatchObject({ online: false });
    expect((await sendHeartbeat(t.app, key, { onlinePlayers: 5, maxPlayers: 9 })).statusCode).toBe(200);
    expect(await listed()).toMatchObject({ online: true, onlinePlayers: 5 });
  });
});

describe('heartbeats and the general rate limit', () => {
  let limited: TestApp;
  // Its own app: the limits are on, with an anonymous budget of 3 a minute per address.
  beforeAll(async () => {
    limited = await buildTestApp({ RATE_LIMIT: 'on', RATE_LIMIT_ANONYMOUS: '3' });
  }, 60_000);
  afterAll(async () => limited.close());

  it('are counted per key, not per address: many servers behind one NAT all get through', async () => {
    const owner = (await createPersonas(limited.app)).user;
    const keys: string[] = [];
    for (let i = 0; i < 6; i++) {
      const server = await createServer(limited.app, owner);
      keys.push((await createKey(limited.app, owner, server.id)).key);
    }
    // Six servers, one address, twice the anonymous budget: all accepted.
    for (const key of keys) expect((await sendHeartbeat(limited.app, key)).statusCode).toBe(200);
    // One key spamming is limited on its own (10 a minute), without touching the others.
    const spam: string[] = [];
    for (let i = 0; i < 11; i++) {
      const response = expectError(await sendHeartbeat(limited.app, keys[0]), 429, 'RATE_LIMITED');
      spam.push(response.message);
    }
    // 1 + 9 reach the service (the 30 s rule answers), the last 2 are the limiter's.
    expect(spam.filter((message) => message.includes('per minute'))).toHaveLength(2);
    expect(spam.slice(0, 9).every((message) => message.includes('every 30 s'))).toBe(true);
    limited.clock.advance(30_000);
    expect((await sendHeartbeat(limited.app, keys[1])).statusCode).toBe(200);
    // Malformed keys count against the address, with the anonymous budget.
    const garbage: number[] = [];
    for (let i = 0; i < 5; i++) garbage.push((await sendHeartbeat(limited.app, 'nope')).statusCode);
    expect(garbage).toEqual([401, 401, 401, 429, 429]);
  });
});
