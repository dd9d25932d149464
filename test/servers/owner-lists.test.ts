// The servers of one owner: GET /servers/user/:userId, GET /users/me/servers, GET /teams/:id/servers.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import { createCast, createStaffedTeam } from '../teams/helpers.js';
import type { TeamBody, TeamCast } from '../teams/helpers.js';
import { createApprovedServer, createServer, expectServerInvariants, moderate } from './helpers.js';
import type { ServerBody } from './helpers.js';

let t: TestApp;
let p: Personas;
let cast: TeamCast;
let team: TeamBody;
/** p.user's own servers, one per status (newest last), and one team server per status. */
const own: Record<string, ServerBody> = {};
const teamOwned: Record<string, ServerBody> = {};

async function inStatuses(owner: TestUser, body: Record<string, unknown>, into: Record<string, ServerBody>) {
  for (const status of ['APPROVED', 'PENDING', 'REJECTED', 'SUSPENDED'] as const) {
    t.clock.advance(1000);
    const server = await createServer(t.app, owner, { name: `${status} server`, ...body });
    if (status === 'APPROVED') await moderate(t.app, p.moderator, server.id, 'approve');
    if (status === 'REJECTED') await moderate(t.app, p.moderator, server.id, 'reject');
    if (status === 'SUSPENDED') await moderate(t.app, p.moderator, server.id, 'suspend');
    into[status] = server;
  }
}

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
  cast = await createCast(t.app);
  team = await createStaffedTeam(t.app, cast);
  await inStatuses(p.user, {}, own);
  await inStatuses(cast.owner, { ownerType: 'TEAM', ownerId: team.id }, teamOwned);
  // The team owner's own server must not show up in the team's list, nor team servers in theirs.
  await createApprovedServer(t.app, cast.owner, p.moderator, { name: 'Personal' });
});
afterAll(async () => t.close());
afterEach(async () => expectServerInvariants(t.app));

const ids = (body: unknown) => (body as { servers: ServerBody[] }).servers.map((server) => server.id);
const newestFirst = (servers: Record<string, ServerBody>, statuses: string[]) =>
  ['SUSPENDED', 'REJECTED', 'PENDING', 'APPROVED']
    .filter((s) => statuses.includes(s))
    .map((s) => servers[s]!.id);
const ALL = ['APPROVED', 'PENDING', 'REJECTED', 'SUSPENDED'];

describe('GET /servers/user/:userId', () => {
  const get = (userId: string, viewer?: TestUser) =>
    t.app.inject({
      method: 'GET',
      url: `/servers/user/${userId}`,
      ...(viewer ? { headers: viewer.headers } : {}),
    });

  it('shows the public only APPROVED servers, in summary form', async () => {
    for (const viewer of [undefined, p.stranger]) {
      const response = await get(p.user.id, viewer);
      expect(response.statusCode, response.body).toBe(200);
      expect(ids(response.json())).toEqual([own['APPROVED']!.id]);
    }
    const [summary] = (await get(p.user.id)).json().servers as Array<Record<string, unknown>>;
    expect(Object.keys(summary!).sort()).toEqual(
      [
        'id',
        'name',
        'slug',
        'shortDescription',
        'ip',
        'port',
        'online',
        'onlinePlayers',
        'maxPlayers',
        'rank',
        'voteCount',
        'totalVotes',
        'status',
        'logoUrl',
        'bannerUrl',
        'createdAt',
      ].sort(),
    );
  });

  it('shows the owner and moderators every status, newest first', async () => {
    for (const viewer of [p.user, p.moderator, p.admin]) {
      expect(ids((await get(p.user.id, viewer)).json())).toEqual(newestFirst(own, ALL));
    }
  });

  it("lists a user's own servers, not their teams'", async () => {
    const response = await get(cast.owner.id, cast.owner);
    const names = (response.json() as { servers: ServerBody[] }).servers.map((server) => server.name);
    expect(names).toEqual(['Personal']);
  });

  it('is 404 for an unknown user', async () => {
    expectError(await get('01900000-0000-7000-8000-000000000000'), 404, 'NOT_FOUND');
  });
});

describe('GET /users/me/servers', () => {
  it('lists every status of your own servers', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/users/me/servers', headers: p.user.headers });
    expect(response.statusCode, response.body).toBe(200);
    expect(ids(response.json())).toEqual(newestFirst(own, ALL));
    const stranger = await t.app.inject({
      method: 'GET',
      url: '/users/me/servers',
      headers: p.stranger.headers,
    });
    expect(stranger.json()).toEqual({ servers: [] });
  });

  it('needs authentication (401)', async () => {
    expectError(await t.app.inject({ method: 'GET', url: '/users/me/servers' }), 401, 'UNAUTHORIZED');
  });
});

describe('GET /teams/:id/servers', () => {
  const get = (teamId: string, viewer?: TestUser) =>
    t.app.inject({
      method: 'GET',
      url: `/teams/${teamId}/servers`,
      ...(viewer ? { headers: viewer.headers } : {}),
    });

  it('shows the public and non-members only APPROVED team servers', async () => {
    for (const viewer of [undefined, cast.nonMember, p.user]) {
      expect(ids((await get(team.id, viewer)).json())).toEqual([teamOwned['APPROVED']!.id]);
    }
  });

  it('shows every team member and moderators all of them', async () => {
    for (const viewer of [cast.owner, cast.admin, cast.moderator, cast.member, p.moderator]) {
      expect(ids((await get(team.id, viewer)).json())).toEqual(newestFirst(teamOwned, ALL));
    }
  });

  it('is 404 for an unknown team', async () => {
    expectError(await get('01900000-0000-7000-8000-000000000000'), 404, 'NOT_FOUND');
  });
});
