// POST /servers/:id/transfer-ownership: who may give a server away, to whom, and the team counters.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas, createUser } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import { addMember, createCast, createStaffedTeam, createTeam } from '../teams/helpers.js';
import type { TeamBody, TeamCast } from '../teams/helpers.js';
import { createApprovedServer, createServer, expectServerInvariants, getServer } from './helpers.js';

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

function transfer(serverId: string, by: TestUser | null, body: Record<string, unknown>) {
  return t.app.inject({
    method: 'POST',
    url: `/servers/${serverId}/transfer-ownership`,
    ...(by ? { headers: by.headers } : {}),
    payload: body,
  });
}

const serverCountOf = async (teamId: string) =>
  (
    await t.app.context.database.db
      .selectFrom('teams')
      .select('server_count')
      .where('id', '=', teamId)
      .executeTakeFirstOrThrow()
  ).server_count;

describe('a user-owned server', () => {
  it('goes to another user; the new owner manages it and the old one no longer does', async () => {
    const server = await createServer(t.app, p.user);
    const response = await transfer(server.id, p.user, { newOwnerId: p.stranger.id, ownerType: 'USER' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      message: 'Server ownership transferred',
      server: { id: server.id, ownerId: p.stranger.id, ownerType: 'USER' },
    });
    const shown = await getServer(t.app, server.slug, p.stranger);
    expect(shown).toMatchObject({
      ownerType: 'USER',
      ownerId: p.stranger.id,
      owner: { username: p.stranger.username },
    });
    // PENDING: the previous owner cannot even see it any more.
    expectError(
      await t.app.inject({
        method: 'PATCH',
        url: `/servers/${server.id}`,
        headers: p.user.headers,
        payload: { name: 'x' },
      }),
      404,
    );
    const edit = await t.app.inject({
      method: 'PATCH',
      url: `/servers/${server.id}`,
      headers: p.stranger.headers,
      payload: { name: 'Mine now' },
    });
    expect(edit.statusCode).toBe(200);
  });

  it('goes to a team in which the caller is OWNER or ADMIN (server_count moves)', async () => {
    for (const who of [cast.owner, cast.admin]) {
      const server = await createServer(t.app, who);
      const before = await serverCountOf(team.id);
      const response = await transfer(server.id, who, { newOwnerId: team.id, ownerType: 'TEAM' });
      expect(response.statusCode, response.body).toBe(200);
      expect(await serverCountOf(team.id)).toBe(before + 1);
      expect((await getServer(t.app, server.slug, cast.member)).owner).toMatchObject({
        type: 'TEAM',
        id: team.id,
      });
    }
  });

  it.each(['moderator', 'member', 'nonMember'] as const)(
    'cannot go to a team in which the caller is %s (403)',
    async (who) => {
      const server = await createServer(t.app, cast[who]);
      expectError(
        await transfer(server.id, cast[who], { newOwnerId: team.id, ownerType: 'TEAM' }),
        403,
        'FORBIDDEN',
      );
      expect((await getServer(t.app, server.slug, cast[who])).ownerId).toBe(cast[who].id);
    },
  );

  it('cannot go to an unknown or banned user, or an unknown team (404)', async () => {
    const server = await createServer(t.app, p.user);
    const banned = await createUser(t.app);
    await t.app.context.database.db
      .updateTable('users')
      .set({ status: 'BANNED' })
      .where('id', '=', banned.id)
      .execute();
    const unknown = '01900000-0000-7000-8000-000000000000';
    expectError(
      await transfer(server.id, p.user, { newOwnerId: unknown, ownerType: 'USER' }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await transfer(server.id, p.user, { newOwnerId: banned.id, ownerType: 'USER' }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await transfer(server.id, p.user, { newOwnerId: unknown, ownerType: 'TEAM' }),
      404,
      'NOT_FOUND',
    );
    // A team id named as a USER (and a user id as a TEAM) is not found either.
    expectError(await transfer(server.id, p.user, { newOwnerId: team.id, ownerType: 'USER' }), 404);
    expect((await getServer(t.app, server.slug, p.user)).ownerId).toBe(p.user.id);
  });

  it('is 409 ALREADY_OWNER when given to its current owner', async () => {
    const server = await createServer(t.app, p.user);
    expectError(
      await transfer(server.id, p.user, { newOwnerId: p.user.id, ownerType: 'USER' }),
      409,
      'ALREADY_OWNER',
    );
  });

  it('refuses strangers: 403 on an approved server, 404 on one they cannot see; 401 anonymous', async () => {
    const approved = await createApprovedServer(t.app, p.user, p.moderator);
    const pending = await createServer(t.app, p.user);
    const body = { newOwnerId: p.stranger.id, ownerType: 'USER' };
    expectError(await transfer(approved.id, p.stranger, body), 403, 'FORBIDDEN');
    expectError(await transfer(pending.id, p.stranger, body), 404, 'NOT_FOUND');
    // Moderators see every server but own none.
    expectError(await transfer(pending.id, p.moderator, body), 403, 'FORBIDDEN');
    expectError(await transfer(approved.id, null, body), 401, 'UNAUTHORIZED');
  });

  it.each([
    ['missing ownerType', { newOwnerId: 'x' }],
    ['missing newOwnerId', { ownerType: 'USER' }],
    ['unknown ownerType', { newOwnerId: 'x', ownerType: 'GUILD' }],
  ])('rejects a body with %s (400)', async (_label, body) => {
    const server = await createServer(t.app, p.user);
    expectError(await transfer(server.id, p.user, body), 400, 'INVALID_REQUEST');
  });
});

describe('a team-owned server', () => {
  it('is given away by the team OWNER only; ADMIN, MODERATOR and MEMBER get 403', async () => {
    const server = await createServer(t.app, cast.owner, { ownerType: 'TEAM', ownerId: team.id });
    for (const who of [cast.admin, cast.moderator, cast.member]) {
      expectError(
        await transfer(server.id, who, { newOwnerId: who.id, ownerType: 'USER' }),
        403,
        'FORBIDDEN',
      );
    }
    expectError(
      await transfer(server.id, cast.nonMember, { newOwnerId: cast.nonMember.id, ownerType: 'USER' }),
      404,
    );
    const before = await serverCountOf(team.id);
    const response = await transfer(server.id, cast.owner, { newOwnerId: cast.admin.id, ownerType: 'USER' });
    expect(response.statusCode, response.body).toBe(200);
    expect(await serverCountOf(team.id)).toBe(before - 1);
    expect((await getServer(t.app, server.slug, cast.admin)).ownerId).toBe(cast.admin.id);
  });

  it('moves between two teams, both counters following', async () => {
    const other = await createTeam(t.app, cast.owner);
    const server = await createServer(t.app, cast.owner, { ownerType: 'TEAM', ownerId: team.id });
    const [fromBefore, toBefore] = [await serverCountOf(team.id), await serverCountOf(other.id)];
    const response = await transfer(server.id, cast.owner, { newOwnerId: other.id, ownerType: 'TEAM' });
    expect(response.statusCode, response.body).toBe(200);
    expect([await serverCountOf(team.id), await serverCountOf(other.id)]).toEqual([
      fromBefore - 1,
      toBefore + 1,
    ]);
  });

  it('lets a team that gave its last server away be deleted', async () => {
    const owner = await createUser(t.app);
    const ownTeam = await createTeam(t.app, owner);
    const admin = await createUser(t.app);
    await addMember(t.app, ownTeam.id, owner, admin, 'ADMIN');
    const server = await createServer(t.app, admin, { ownerType: 'TEAM', ownerId: ownTeam.id });
    expectError(
      await t.app.inject({ method: 'DELETE', url: `/teams/${ownTeam.id}`, headers: owner.headers }),
      409,
    );
    const moved = await transfer(server.id, owner, { newOwnerId: owner.id, ownerType: 'USER' });
    expect(moved.statusCode, moved.body).toBe(200);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/teams/${ownTeam.id}`,
      headers: owner.headers,
    });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect((await getServer(t.app, server.slug, owner)).ownerType).toBe('USER');
  });
});
