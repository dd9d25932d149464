// POST /servers/:id/status and the recompute-server-ranks job.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import { createCast, createStaffedTeam } from '../teams/helpers.js';
import type { TeamBody, TeamCast } from '../teams/helpers.js';
import {
  createApprovedServer,
  createServer,
  expectServerInvariants,
  getServer,
  recomputeRanks,
  reportStatus,
} from './helpers.js';

let t: TestApp;
let p: Personas;
let cast: TeamCast;
let team: TeamBody;

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
  cast = await createCast(t.app);
  team = await createStaffedTeam(t.app, cast);
});
afterAll(async () => t.close());
afterEach(async () => expectServerInvariants(t.app));

const post = (serverId: string, by: TestUser | null, payload: Record<string, unknown>) =>
  t.app.inject({
    method: 'POST',
    url: `/servers/${serverId}/status`,
    ...(by ? { headers: by.headers } : {}),
    payload,
  });

describe('POST /servers/:id/status', () => {
  it('records online, players and capacity, and when they were reported', async () => {
    const server = await createServer(t.app, p.user);
    t.clock.advance(5000);
    const response = await post(server.id, p.user, { online: true, onlinePlayers: 12, maxPlayers: 50 });
    expect(response.statusCode, response.body).toBe(200);
    const reportedAt = t.clock.now().toISOString();
    expect(response.json()).toEqual({
      id: server.id,
      online: true,
      onlinePlayers: 12,
      maxPlayers: 50,
      lastReportedAt: reportedAt,
    });
    expect(await getServer(t.app, server.slug, p.user)).toMatchObject({
      online: true,
      onlinePlayers: 12,
      maxPlayers: 50,
      lastReportedAt: reportedAt,
      // A status report is not an edit.
      updatedAt: server.updatedAt,
    });
  });

  it('records an offline server with 0 players, whatever was sent', async () => {
    const server = await createServer(t.app, p.user);
    const response = await post(server.id, p.user, { online: false, onlinePlayers: 7, maxPlayers: 20 });
    expect(response.json()).toMatchObject({ online: false, onlinePlayers: 0, maxPlayers: 20 });
  });

  it('accepts onlinePlayers equal to maxPlayers, and 0/0', async () => {
    const server = await createServer(t.app, p.user);
    expect(
      (await post(server.id, p.user, { online: true, onlinePlayers: 20, maxPlayers: 20 })).statusCode,
    ).toBe(200);
    expect(
      (await post(server.id, p.user, { online: true, onlinePlayers: 0, maxPlayers: 0 })).statusCode,
    ).toBe(200);
  });

  it.each([
    ['onlinePlayers above maxPlayers', { online: true, onlinePlayers: 21, maxPlayers: 20 }],
    ['negative onlinePlayers', { online: true, onlinePlayers: -1, maxPlayers: 20 }],
    ['negative maxPlayers', { online: true, onlinePlayers: 0, maxPlayers: -5 }],
    ['fractional players', { online: true, onlinePlayers: 1.5, maxPlayers: 20 }],
    ['players as strings', { online: true, onlinePlayers: '3', maxPlayers: '20' }],
    ['online as a string', { online: 'yes', onlinePlayers: 3, maxPlayers: 20 }],
    ['missing online', { onlinePlayers: 3, maxPlayers: 20 }],
    ['missing maxPlayers', { online: true, onlinePlayers: 3 }],
    ['absurd capacity', { online: true, onlinePlayers: 0, maxPlayers: 10_000_001 }],
  ])('rejects %s (400)', async (_label, payload) => {
    const server = await createServer(t.app, p.user);
    expectError(await post(server.id, p.user, payload), 400, 'INVALID_REQUEST');
    expect((await getServer(t.app, server.slug, p.user)).lastReportedAt).toBeNull();
  });

  it('is for the owner side and every team member; others get 401/403/404', async () => {
    const status = { online: true, onlinePlayers: 1, maxPlayers: 2 };
    const teamServer = await createApprovedServer(t.app, cast.owner, p.moderator, {
      ownerType: 'TEAM',
      ownerId: team.id,
    });
    for (const member of [cast.owner, cast.admin, cast.moderator, cast.member]) {
      expect((await post(teamServer.id, member, status)).statusCode).toBe(200);
    }
    expectError(await post(teamServer.id, cast.nonMember, status), 403, 'FORBIDDEN');
    expectError(await post(teamServer.id, p.moderator, status), 403, 'FORBIDDEN');
    expectError(await post(teamServer.id, null, status), 401, 'UNAUTHORIZED');
    const pending = await createServer(t.app, p.user);
    expectError(await post(pending.id, p.stranger, status), 404, 'NOT_FOUND');
    expectError(await post('01900000-0000-7000-8000-000000000000', p.user, status), 404, 'NOT_FOUND');
  });
});

// The rank itself (score, order, approval) is tested in test/servers/rank/.
describe('recompute-server-ranks', () => {
  it('shows servers that stopped reporting for 3 minutes as offline with no players', async () => {
    const fresh = await buildTestApp();
    try {
      const personas = await createPersonas(fresh.app);
      const silent = await createApprovedServer(fresh.app, personas.user, personas.moderator, {
        name: 'silent',
      });
      const chatty = await createApprovedServer(fresh.app, personas.user, personas.moderator, {
        name: 'chatty',
      });
      await reportStatus(fresh.app, personas.user, silent.id, {
        online: true,
        onlinePlayers: 50,
        maxPlayers: 60,
      });
      await reportStatus(fresh.app, personas.user, chatty.id, {
        online: true,
        onlinePlayers: 5,
        maxPlayers: 60,
      });
      fresh.clock.advance(3 * 60_000 - 1);
      await recomputeRanks(fresh.app);
      // 1 ms before the 3 minutes are up it still counts as online; at the boundary it no longer does.
      expect((await getServer(fresh.app, silent.slug)).online).toBe(true);
      fresh.clock.advance(1);
      await reportStatus(fresh.app, personas.user, chatty.id, {
        online: true,
        onlinePlayers: 5,
        maxPlayers: 60,
      });
      await recomputeRanks(fresh.app);
      expect(await getServer(fresh.app, silent.slug)).toMatchObject({
        online: false,
        onlinePlayers: 0,
        maxPlayers: 60,
      });
      expect(await getServer(fresh.app, chatty.slug)).toMatchObject({
        online: true,
        onlinePlayers: 5,
      });
    } finally {
      await fresh.close();
    }
  });
});
