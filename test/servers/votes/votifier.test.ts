// Votifier (spec/extensions.md §3) through the real app against a NuVotifier v2 peer on 127.0.0.1: the settings
// routes (owner side, token never returned, the outbound rules on PUT), delivery verified by the peer (HMAC and
// challenge), a wrong token refused and retried on the webhook schedule until FAILED, a peer that is down
// retried until it is up, and a target refused at delivery time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETRY_DELAYS_MS } from '../../../src/core/outbound/retry.js';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { createPersonas } from '../../helpers/factories.js';
import type { Personas, TestUser } from '../../helpers/factories.js';
import { startVotifierPeer } from '../../helpers/votifier-peer.js';
import type { VotifierPeer } from '../../helpers/votifier-peer.js';
import { createApprovedServer, createServer } from '../helpers.js';
import { createVoters, listVotes, nextAddress, vote, voterOf } from './helpers.js';

const TOKEN = 'peer-token-0123456789';
const DELIVER = 'deliver-votifier-votes';

let t: TestApp;
let p: Personas;
let owner: TestUser;
let peer: VotifierPeer;

beforeAll(async () => {
  t = await buildTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true' });
  p = await createPersonas(t.app);
  owner = await voterOf(t.app);
  peer = await startVotifierPeer(TOKEN);
});
afterAll(async () => {
  await peer.close();
  await t.close();
});

function putVotifier(serverId: string, body: Record<string, unknown>, user: TestUser | null = owner) {
  return t.app.inject({
    method: 'PUT',
    url: `/servers/${serverId}/votifier`,
    ...(user ? { headers: user.headers } : {}),
    payload: body,
  });
}

async function serverWithVotifier(token = TOKEN) {
  const server = await createApprovedServer(t.app, owner, p.moderator);
  const response = await putVotifier(server.id, { host: '127.0.0.1', port: peer.port, token });
  expect(response.statusCode, response.body).toBe(200);
  return server;
}

const deliver = () => t.app.context.scheduler.runNow(DELIVER);

describe('Votifier settings', () => {
  it('PUT creates and replaces, GET reads without the token, DELETE removes; the token is stored sealed', async () => {
    const server = await createApprovedServer(t.app, owner, p.moderator);
    const missingToken = await putVotifier(server.id, { host: '127.0.0.1', port: 8192 });
    expect(missingToken.statusCode).toBe(400);
    const created = await putVotifier(server.id, { host: '127.0.0.1', port: 8192, token: 'first-token' });
    expect(created.statusCode, created.body).toBe(200);
    const now = t.clock.now().toISOString();
    expect(created.json()).toEqual({
      host: '127.0.0.1',
      port: 8192,
      enabled: true,
      createdAt: now,
      updatedAt: now,
    });
    t.clock.advance(1000);
    // Omitting the token keeps the stored one.
    const replaced = await putVotifier(server.id, { host: 'localhost', port: 8193, enabled: false });
    expect(replaced.json()).toEqual({
      host: 'localhost',
      port: 8193,
      enabled: false,
      createdAt: now,
      updatedAt: t.clock.now().toISOString(),
    });
    const read = await t.app.inject({
      method: 'GET',
      url: `/servers/${server.id}/votifier`,
      headers: owner.headers,
    });
    expect(read.json()).toEqual(replaced.json());
    expect(read.body).not.toContain('first-token');
    const row = await t.app.context.database.db
      .selectFrom('server_votifiers')
      .select('token_sealed')
      .where('server_id', '=', server.id)
      .executeTakeFirstOrThrow();
    expect(row.token_sealed).not.toContain('first-token');

    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/servers/${server.id}/votifier`,
      headers: owner.headers,
    });
    expect(removed.statusCode).toBe(204);
    for (const method of ['GET', 'DELETE'] as const) {
      const gone = await t.app.inject({
        method,
        url: `/servers/${server.id}/votifier`,
        headers: owner.headers,
      });
      expect(gone.statusCode).toBe(404);
    }
  });

  it('validates the body and allows only the owner side', async () => {
    const server = await createApprovedServer(t.app, owner, p.moderator);
    for (const body of [
      { host: 'not a host', port: 8192, token: 'x' },
      { host: '[::1]', port: 8192, token: 'x' },
      { host: '127.0.0.1', port: 0, token: 'x' },
      { host: '127.0.0.1', port: 65536, token: 'x' },
      { host: '127.0.0.1', port: 8192, token: '' },
      { host: '127.0.0.1', port: 8192, token: 'x'.repeat(513) },
      { host: '127.0.0.1', port: '8192x', token: 'x' },
      { host: '127.0.0.1', port: 8192, token: 'x', enabled: 'maybe' },
    ]) {
      expect((await putVotifier(server.id, body)).statusCode, JSON.stringify(body)).toBe(400);
    }
    const body = { host: '127.0.0.1', port: 8192, token: 'x' };
    expect((await putVotifier(server.id, body, p.stranger)).statusCode).toBe(403);
    expect((await putVotifier(server.id, body, p.moderator)).statusCode).toBe(403);
    expect((await putVotifier(server.id, body, null)).statusCode).toBe(401);
    const pending = await createServer(t.app, owner);
    expect((await putVotifier(pending.id, body, p.stranger)).statusCode).toBe(404);
    expect((await putVotifier('0190f0f0-0000-7000-8000-000000000000', body)).statusCode).toBe(404);
    const read = await t.app.inject({
      method: 'GET',
      url: `/servers/${server.id}/votifier`,
      headers: p.stranger.headers,
    });
    expect(read.statusCode).toBe(403);
  });
});

describe('delivery', () => {
  it('delivers a vote with the NuVotifier v2 protocol; the peer checks HMAC and challenge', async () => {
    const server = await serverWithVotifier();
    const voter = await voterOf(t.app);
    const at = t.clock.now().getTime();
    await vote(t.app, server.id, voter, '198.51.100.23', 'Notch_2');
    expect((await listVotes(t.app, server.id, owner))[0]!.delivery).toEqual({
      status: 'PENDING',
      attempts: 0,
      lastError: null,
    });
    const before = peer.votes.length;
    expect(await deliver()).toBe(true);
    expect(peer.votes.slice(before)).toEqual([
      {
        serviceName: 'api.test',
        username: 'Notch_2',
        address: '198.51.100.23',
        timestamp: at,
        challenge: expect.stringMatching(/^[0-9a-f]{24}$/),
      },
    ]);
    expect((await listVotes(t.app, server.id, owner))[0]!.delivery).toEqual({
      status: 'SUCCEEDED',
      attempts: 1,
      lastError: null,
    });
    // Delivered once: another run sends nothing.
    await deliver();
    expect(peer.votes.length).toBe(before + 1);
  });

  it('a wrong token: the peer refuses, the error is recorded, retried on the schedule, then FAILED', async () => {
    const server = await serverWithVotifier('not-the-peer-token');
    await vote(t.app, server.id, await voterOf(t.app));
    const refusalsBefore = peer.refusals.length;
    await deliver();
    let [listed] = await listVotes(t.app, server.id, owner);
    expect(listed!.delivery).toMatchObject({ status: 'PENDING', attempts: 1 });
    expect(listed!.delivery!.lastError).toMatch(
      /^REFUSED: The peer refused the vote: .*Signature is not valid/,
    );
    expect(peer.refusals.slice(refusalsBefore)).toHaveLength(1);
    // Not due yet: nothing is sent before the first retry time.
    t.clock.advance(RETRY_DELAYS_MS[0]! * 0.89);
    await deliver();
    expect(peer.refusals.length).toBe(refusalsBefore + 1);
    for (const [index, delay] of RETRY_DELAYS_MS.entries()) {
      t.clock.advance(delay * 1.11 + 1000);
      await deliver();
      [listed] = await listVotes(t.app, server.id, owner);
      expect(listed!.delivery!.attempts).toBe(index + 2);
    }
    expect(listed!.delivery!.status).toBe('FAILED');
    expect(peer.refusals.length).toBe(refusalsBefore + RETRY_DELAYS_MS.length + 1);
  });

  it('a peer that is down: the connection error is retried and the vote arrives once it is up', async () => {
    const server = await serverWithVotifier();
    await peer.stop();
    try {
      await vote(t.app, server.id, await voterOf(t.app), nextAddress(), 'LateVoter');
      await deliver();
      const [listed] = await listVotes(t.app, server.id, owner);
      expect(listed!.delivery).toEqual({
        status: 'PENDING',
        attempts: 1,
        lastError: 'CONNECTION: The connection was refused',
      });
    } finally {
      await peer.start();
    }
    t.clock.advance(RETRY_DELAYS_MS[0]! * 1.11);
    await deliver();
    expect(peer.votes.at(-1)!.username).toBe('LateVoter');
    expect((await listVotes(t.app, server.id, owner))[0]!.delivery).toEqual({
      status: 'SUCCEEDED',
      attempts: 2,
      lastError: null,
    });
  });

  it('no delivery without an enabled Votifier; a Votifier removed before delivery fails the vote', async () => {
    const server = await serverWithVotifier();
    expect(
      (await putVotifier(server.id, { host: '127.0.0.1', port: peer.port, enabled: false })).statusCode,
    ).toBe(200);
    await vote(t.app, server.id, await voterOf(t.app));
    expect((await listVotes(t.app, server.id, owner))[0]!.delivery).toBeNull();
    expect((await putVotifier(server.id, { host: '127.0.0.1', port: peer.port })).json().enabled).toBe(true);
    await vote(t.app, server.id, await voterOf(t.app));
    await t.app.inject({ method: 'DELETE', url: `/servers/${server.id}/votifier`, headers: owner.headers });
    const before = peer.votes.length;
    await deliver();
    expect(peer.votes.length).toBe(before);
    expect((await listVotes(t.app, server.id, owner))[0]!.delivery).toEqual({
      status: 'FAILED',
      attempts: 0,
      lastError: 'The Votifier was removed before the vote was delivered',
    });
  });

  it('delivers many votes, each once', async () => {
    const server = await serverWithVotifier();
    const voters = await createVoters(t.app, p.user, 25);
    await Promise.all(voters.map((voter, i) => vote(t.app, server.id, voter, nextAddress(), `Many${i}`)));
    const before = peer.votes.length;
    await deliver();
    const names = peer.votes
      .slice(before)
      .map((received) => received.username)
      .sort();
    expect(names).toEqual(voters.map((_, i) => `Many${i}`).sort());
  });
});

describe('the outbound rules', () => {
  let strict: TestApp;
  beforeAll(async () => {
    strict = await buildTestApp();
  });
  afterAll(async () => strict.close());

  it('refuses loopback, private and link-local hosts on PUT, and again at delivery', async () => {
    const s = await createPersonas(strict.app);
    const server = await createApprovedServer(strict.app, s.user, s.moderator);
    for (const host of ['127.0.0.1', 'localhost', '10.1.2.3', '169.254.169.254', '::1', 'fd00::1']) {
      const response = await strict.app.inject({
        method: 'PUT',
        url: `/servers/${server.id}/votifier`,
        headers: s.user.headers,
        payload: { host, port: peer.port, token: TOKEN },
      });
      expect(response.statusCode, host).toBe(400);
      expect(response.json().code).toBe('OUTBOUND_TARGET_REFUSED');
      expect(response.body).not.toContain(String(peer.port));
    }
    // A target that became private after it was set (DNS changed): the delivery is refused, not sent.
    const now = strict.clock.now().toISOString();
    await strict.app.context.database.db
      .insertInto('server_votifiers')
      .values({
        server_id: server.id,
        host: '127.0.0.1',
        port: peer.port,
        token_sealed: 'v1.unused.unused.unused',
        enabled: true,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const before = peer.votes.length + peer.refusals.length;
    await vote(strict.app, server.id, s.stranger);
    await strict.app.context.scheduler.runNow(DELIVER);
    const [listed] = await listVotes(strict.app, server.id, s.user);
    expect(listed!.delivery!.status).toBe('PENDING');
    expect(listed!.delivery!.lastError).toMatch(
      /^(TARGET_REFUSED: The host resolves to a loopback|TOKEN_UNREADABLE)/,
    );
    expect(peer.votes.length + peer.refusals.length).toBe(before);
  });
});
