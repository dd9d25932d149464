// Votes (spec/extensions.md §3) through the real app: both cooldowns (account, and IPv4 address / IPv6 /64) with
// their 24-hour boundary, exactly one vote per concurrent request, the monthly counter and its reset job, the
// owner side's list, sort=votes, and no voter identity in anything public (server reads, lists, events, feeds).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { createPersonas } from '../../helpers/factories.js';
import type { Personas, TestUser } from '../../helpers/factories.js';
import { createApprovedServer, createServer, getServer } from '../helpers.js';
import type { ServerBody } from '../helpers.js';
import { createVoters, listVotes, nextAddress, postVote, vote, voterOf } from './helpers.js';

const DAY = 24 * 60 * 60 * 1000;

/** A server as GET /servers/slug/:slug answers, with its vote counters. */
const getVoted = async (slug: string) =>
  (await getServer(t.app, slug)) as ServerBody & { voteCount: number; totalVotes: number };

let t: TestApp;
let p: Personas;
let owner: TestUser;

beforeAll(async () => {
  t = await buildTestApp({ EVENT_FEED_SETTLE_MS: '0' });
  p = await createPersonas(t.app);
  owner = await voterOf(t.app);
});
afterAll(async () => t.close());

describe('POST /servers/:id/votes', () => {
  it('counts a vote: 201 with this month, all time and the next allowed time', async () => {
    const server = await createApprovedServer(t.app, owner, p.moderator);
    const before = t.clock.now().getTime();
    const result = await vote(t.app, server.id, p.user);
    expect(result).toEqual({
      voteCount: 1,
      totalVotes: 1,
      nextVoteAt: new Date(before + DAY).toISOString(),
    });
    const read = await getVoted(server.slug);
    expect([read.voteCount, read.totalVotes]).toEqual([1, 1]);
  });

  it('refuses a second vote of one account within 24 hours, from any address; allows it at 24 hours', async () => {
    const server = await createApprovedServer(t.app, owner, p.moderator);
    const voter = await voterOf(t.app);
    const first = await vote(t.app, server.id, voter);
    t.clock.advance(DAY - 1);
    const again = await postVote(t.app, server.id, voter, nextAddress());
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'VOTE_COOLDOWN', details: { nextVoteAt: first.nextVoteAt } });
    t.clock.advance(1);
    expect((await vote(t.app, server.id, voter)).totalVotes).toBe(2);
  });

  it('refuses a second vote from one IPv4 address by another account; the same account elsewhere is fine', async () => {
    const server = await createApprovedServer(t.app, owner, p.moderator);
    const other = await createApprovedServer(t.app, owner, p.moderator);
    const [a, b] = await Promise.all([voterOf(t.app), voterOf(t.app)]);
    await vote(t.app, server.id, a, '203.0.113.7');
    const sameAddress = await postVote(t.app, server.id, b, '203.0.113.7');
    expect(sameAddress.statusCode).toBe(409);
    expect(sameAddress.json().code).toBe('VOTE_COOLDOWN');
    // Cooldowns are per server.
    await vote(t.app, other.id, b, '203.0.113.7');
    await vote(t.app, server.id, b, '203.0.113.8');
  });

  it('groups IPv6 clients by /64: another address in the /64 is refused, another /64 is not', async () => {
    const server = await createApprovedServer(t.app, owner, p.moderator);
    const [a, b, c] = await Promise.all([voterOf(t.app), voterOf(t.app), voterOf(t.app)]);
    await vote(t.app, server.id, a, '2001:db8:1:2::1');
    const sameSlash64 = await postVote(t.app, server.id, b, '2001:db8:1:2:ffff:ffff:ffff:fffe');
    expect(sameSlash64.statusCode).toBe(409);
    expect(sameSlash64.json().code).toBe('VOTE_COOLDOWN');
    await vote(t.app, server.id, c, '2001:db8:1:3::1');
    // An IPv4-mapped address is its IPv4 address.
    await vote(t.app, server.id, b, '198.51.100.9');
    const mapped = await postVote(t.app, server.id, await voterOf(t.app), '::ffff:198.51.100.9');
    expect(mapped.statusCode).toBe(409);
  });

  it('200 parallel votes from 200 accounts count exactly 200; parallel repeats of one account count once', async () => {
    const server = await createApprovedServer(t.app, owner, p.moderator);
    const voters = await createVoters(t.app, p.user, 200);
    const responses = await Promise.all(voters.map((voter) => postVote(t.app, server.id, voter)));
    const failed = responses.filter((response) => response.statusCode !== 201);
    expect(failed.slice(0, 3).map((response) => response.body)).toEqual([]);
    const counts = responses.map((response) => (response.json() as { totalVotes: number }).totalVotes);
    expect(new Set(counts).size).toBe(200);
    const read = await getVoted(server.slug);
    expect([read.voteCount, read.totalVotes]).toEqual([200, 200]);
    const rows = await t.app.context.database.db
      .selectFrom('server_votes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('server_id', '=', server.id)
      .executeTakeFirstOrThrow();
    expect(Number(rows.n)).toBe(200);

    const single = await voterOf(t.app);
    const repeats = await Promise.all(
      Array.from({ length: 10 }, () => postVote(t.app, server.id, single, nextAddress())),
    );
    expect(repeats.filter((response) => response.statusCode === 201)).toHaveLength(1);
    expect(repeats.filter((response) => response.statusCode === 409)).toHaveLength(9);
    expect((await getVoted(server.slug)).totalVotes).toBe(201);
  });

  it('404 for a server the caller cannot see, 409 for a visible one that is not APPROVED, 401 anonymous', async () => {
    const pending = await createServer(t.app, owner);
    expect((await postVote(t.app, pending.id, p.stranger)).statusCode).toBe(404);
    const own = await postVote(t.app, pending.id, owner);
    expect(own.statusCode).toBe(409);
    expect(own.json().code).toBe('SERVER_NOT_APPROVED');
    expect((await postVote(t.app, '0190f0f0-0000-7000-8000-000000000000', p.user)).statusCode).toBe(404);
    const approved = await createApprovedServer(t.app, owner, p.moderator);
    expect((await postVote(t.app, approved.id, undefined)).statusCode).toBe(401);
    expect((await getVoted(approved.slug)).totalVotes).toBe(0);
  });

  it('validates the body: 1–32 characters, no control characters; other fields are never applied', async () => {
    const server = await createApprovedServer(t.app, owner, p.moderator);
    for (const username of ['', '   ', 'x'.repeat(33), 'bad\u0000name', 'tab\tname', 42]) {
      const response = await t.app.inject({
        method: 'POST',
        url: `/servers/${server.id}/votes`,
        headers: p.user.headers,
        remoteAddress: nextAddress(),
        payload: { username },
      });
      expect(response.statusCode, JSON.stringify(username)).toBe(400);
    }
    const tooLongId = await postVote(t.app, 'x'.repeat(65), p.user);
    expect(tooLongId.statusCode).toBe(400);
    const voter = await voterOf(t.app);
    const response = await t.app.inject({
      method: 'POST',
      url: `/servers/${server.id}/votes`,
      headers: voter.headers,
      remoteAddress: nextAddress(),
      payload: {
        username: '  Alex  ',
        userId: p.stranger.id,
        voteCount: 1000,
        createdAt: '2000-01-01T00:00:00Z',
      },
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().voteCount).toBe(1);
    const [listed] = await listVotes(t.app, server.id, owner);
    expect(listed).toMatchObject({ username: 'Alex', user: { id: voter.id, username: voter.username } });
    expect(listed!.createdAt).toBe(t.clock.now().toISOString());
  });
});

describe('GET /servers/:id/votes', () => {
  it('shows the owner side every vote, newest first, with voter and delivery; 403/404/401 otherwise', async () => {
    const server = await createApprovedServer(t.app, owner, p.moderator);
    const [a, b] = await Promise.all([voterOf(t.app), voterOf(t.app)]);
    await vote(t.app, server.id, a, nextAddress(), 'FirstName');
    t.clock.advance(1000);
    await vote(t.app, server.id, b, nextAddress(), 'SecondName');
    const response = await t.app.inject({
      method: 'GET',
      url: `/servers/${server.id}/votes?limit=1`,
      headers: owner.headers,
    });
    expect(response.statusCode).toBe(200);
    const page = response.json();
    expect(page.total).toBe(2);
    expect(page.meta).toEqual({ total: 2, limit: 1, offset: 0 });
    expect(page.votes).toEqual([
      {
        id: expect.any(String),
        username: 'SecondName',
        user: { id: b.id, username: b.username },
        createdAt: t.clock.now().toISOString(),
        delivery: null,
      },
    ]);
    const second = await t.app.inject({
      method: 'GET',
      url: `/servers/${server.id}/votes?limit=1&offset=1`,
      headers: owner.headers,
    });
    expect(second.json().votes[0].username).toBe('FirstName');

    for (const [who, status] of [
      [p.stranger, 403],
      [p.moderator, 403],
      [a, 403],
    ] as const) {
      const denied = await t.app.inject({
        method: 'GET',
        url: `/servers/${server.id}/votes`,
        headers: who.headers,
      });
      expect(denied.statusCode).toBe(status);
    }
    expect((await t.app.inject({ method: 'GET', url: `/servers/${server.id}/votes` })).statusCode).toBe(401);
    const pending = await createServer(t.app, owner);
    const hidden = await t.app.inject({
      method: 'GET',
      url: `/servers/${pending.id}/votes`,
      headers: p.stranger.headers,
    });
    expect(hidden.statusCode).toBe(404);
    const badLimit = await t.app.inject({
      method: 'GET',
      url: `/servers/${server.id}/votes?limit=101`,
      headers: owner.headers,
    });
    expect(badLimit.statusCode).toBe(400);
  });
});

describe('no voter identity in public responses', () => {
  it('server reads, lists, events and feeds carry counts only', async () => {
    const server = await createApprovedServer(t.app, owner, p.moderator, { name: 'Privacy check' });
    const voter = await voterOf(t.app);
    const ip = nextAddress();
    await vote(t.app, server.id, voter, ip, 'SecretIngameName');
    const secrets = [voter.id, voter.username, 'SecretIngameName', ip];
    const bodies = await Promise.all([
      t.app.inject({ method: 'GET', url: `/servers/slug/${server.slug}` }),
      t.app.inject({ method: 'GET', url: `/servers/slug/${server.slug}`, headers: owner.headers }),
      t.app.inject({ method: 'GET', url: '/servers?search=Privacy%20check' }),
      t.app.inject({ method: 'GET', url: `/servers/user/${owner.id}` }),
      t.app.inject({ method: 'GET', url: `/events?serverId=${server.id}` }),
      t.app.inject({ method: 'GET', url: `/events?serverId=${server.id}`, headers: owner.headers }),
      t.app.inject({ method: 'GET', url: `/events?userId=${voter.id}`, headers: voter.headers }),
      t.app.inject({ method: 'GET', url: `/users/${voter.id}/feed.atom` }),
    ]);
    for (const [index, response] of bodies.entries()) {
      expect(response.statusCode, response.body).toBe(200);
      // The voter's own feed names the voter, of course; it must not name the vote.
      const hidden = index === bodies.length - 1 ? secrets.slice(2).concat(server.name) : secrets;
      for (const secret of hidden) expect(response.body).not.toContain(secret);
    }
    const list = bodies[2]!.json().servers;
    expect(list[0]).toMatchObject({ id: server.id, voteCount: 1, totalVotes: 1 });
    const summaries = bodies[3]!.json().servers as Array<{ id: string; voteCount: number }>;
    expect(summaries.find((s) => s.id === server.id)).toMatchObject({ voteCount: 1, totalVotes: 1 });
    for (const response of [bodies[4]!, bodies[5]!]) {
      const voted = (response.json().events as Array<{ type: string }>).filter(
        (e) => e.type === 'server.voted',
      );
      expect(voted).toEqual([
        expect.objectContaining({ actor: null, data: { voteCount: 1, totalVotes: 1 } }),
      ]);
    }
    const row = await t.app.context.database.db
      .selectFrom('events')
      .select(['actor_id', 'actor_username', 'user_id', 'data'])
      .where('type', '=', 'server.voted')
      .where('server_id', '=', server.id)
      .executeTakeFirstOrThrow();
    // Placed under the server's owner, never the voter.
    expect(row).toEqual({
      actor_id: null,
      actor_username: null,
      user_id: owner.id,
      data: JSON.stringify({ voteCount: 1, totalVotes: 1 }),
    });
  });
});

describe('sort=votes', () => {
  it('orders the directory by this month’s votes, then oldest first', async () => {
    const tag = `votesort${process.pid}`;
    const [low, none, high] = [
      await createApprovedServer(t.app, owner, p.moderator, { name: `${tag} low` }),
      await createApprovedServer(t.app, owner, p.moderator, { name: `${tag} none` }),
      await createApprovedServer(t.app, owner, p.moderator, { name: `${tag} high` }),
    ];
    await vote(t.app, low.id, await voterOf(t.app));
    for (let i = 0; i < 3; i += 1) await vote(t.app, high.id, await voterOf(t.app));
    const filtered = await t.app.inject({ method: 'GET', url: `/servers?sort=votes&search=${tag}` });
    expect(filtered.json().servers.map((s: { id: string }) => s.id)).toEqual([high.id, low.id, none.id]);
    // The unfiltered page is a cached, prepared query: past the cache's 5 seconds it shows the new order.
    t.clock.advance(6000);
    const all = await t.app.inject({ method: 'GET', url: '/servers?sort=votes&limit=100' });
    const ids = (all.json().servers as Array<{ id: string; voteCount: number }>).map((s) => s.id);
    const counts = (all.json().servers as Array<{ voteCount: number }>).map((s) => s.voteCount);
    expect(counts).toEqual([...counts].sort((x, y) => y - x));
    expect(ids.indexOf(high.id)).toBeLessThan(ids.indexOf(low.id));
    expect(ids.indexOf(low.id)).toBeLessThan(ids.indexOf(none.id));
    expect((await t.app.inject({ method: 'GET', url: '/servers?sort=likes' })).statusCode).toBe(400);
  });
});

describe('openapi', () => {
  it('documents the vote and Votifier routes and the votes sort', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operations = {
      '/servers/{id}/votes': { post: 'voteForServer', get: 'listServerVotes' },
      '/servers/{id}/votifier': {
        put: 'putServerVotifier',
        get: 'getServerVotifier',
        delete: 'deleteServerVotifier',
      },
    };
    for (const [path, methods] of Object.entries(operations)) {
      for (const [method, operationId] of Object.entries(methods)) {
        const operation = doc.paths[path][method];
        expect(operation.operationId).toBe(operationId);
        expect(operation.security).toBeDefined();
        expect(operation.tags).toEqual(['servers']);
        expect(operation.description.length).toBeGreaterThan(20);
      }
    }
    expect(JSON.stringify(doc.paths['/servers'].get.parameters)).toContain('"votes"');
    expect(doc.components.schemas.VoteResult.required).toEqual(['voteCount', 'totalVotes', 'nextVoteAt']);
    expect(doc.components.schemas.Votifier.properties.token).toBeUndefined();
  });
});

describe('the monthly counter', () => {
  it('restarts on the 1st (UTC): the job zeroes last month, keeps totals, and is idempotent', async () => {
    const server = await createApprovedServer(t.app, owner, p.moderator);
    const untouched = await createApprovedServer(t.app, owner, p.moderator);
    t.clock.set(new Date('2030-11-30T23:59:00.000Z'));
    await vote(t.app, server.id, await voterOf(t.app));
    await vote(t.app, server.id, await voterOf(t.app));
    t.clock.set(new Date('2030-12-01T00:00:00.000Z'));
    expect(await t.app.context.scheduler.runNow('reset-monthly-votes')).toBe(true);
    const after = await getVoted(server.slug);
    expect([after.voteCount, after.totalVotes]).toEqual([0, 2]);
    expect((await getVoted(untouched.slug)).voteCount).toBe(0);
    expect(await t.app.context.scheduler.runNow('reset-monthly-votes')).toBe(true);
    expect((await getVoted(server.slug)).totalVotes).toBe(2);
    // The first vote of the month counts 1, whether or not the job ran before it.
    const december = await vote(t.app, server.id, await voterOf(t.app));
    expect([december.voteCount, december.totalVotes]).toEqual([1, 3]);
    t.clock.set(new Date('2031-01-01T00:00:10.000Z'));
    expect((await vote(t.app, server.id, await voterOf(t.app))).voteCount).toBe(1);
    expect(await t.app.context.scheduler.runNow('reset-monthly-votes')).toBe(true);
    expect((await getVoted(server.slug)).voteCount).toBe(1);
  });
});

describe('voter addresses', () => {
  it('are forgotten 30 days after the vote, except while a delivery still needs them', async () => {
    const server = await createApprovedServer(t.app, owner, p.moderator);
    const { db } = t.app.context.database;
    const start = t.clock.now().getTime();
    await vote(t.app, server.id, await voterOf(t.app));
    await vote(t.app, server.id, await voterOf(t.app));
    const rows = () =>
      db
        .selectFrom('server_votes')
        .select(['id', 'client_key', 'address', 'created_at'])
        .where('server_id', '=', server.id)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    const [first] = await rows();
    // A delivery still pending (a Votifier listener that has been down) keeps its address.
    await db
      .updateTable('server_votes')
      .set({ delivery_status: 'PENDING' })
      .where('id', '=', first!.id)
      .execute();
    t.clock.set(new Date(start + DAY));
    const recent = await vote(t.app, server.id, await voterOf(t.app));
    expect(recent.totalVotes).toBe(3);

    t.clock.set(new Date(start + 30 * DAY + 1));
    expect(await t.app.context.scheduler.runNow('forget-voter-addresses')).toBe(true);
    const after = await rows();
    expect(after.map((row) => row.address === null)).toEqual([false, true, false]);
    expect(after.map((row) => row.client_key === null)).toEqual([false, true, false]);
    // The owner's list still shows who voted.
    expect(await listVotes(t.app, server.id, owner)).toHaveLength(3);
  });
});
