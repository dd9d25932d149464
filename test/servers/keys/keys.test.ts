// Server keys: POST/GET/DELETE /servers/:id/keys (spec/extensions.md §3).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digest } from '../../../src/core/auth/credentials.js';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { createPersonas } from '../../helpers/factories.js';
import type { Personas, TestUser } from '../../helpers/factories.js';
import { expectError } from '../../helpers/http.js';
import { loadOpenApi } from '../../helpers/openapi.js';
import { createCast, createStaffedTeam } from '../../teams/helpers.js';
import type { TeamBody, TeamCast } from '../../teams/helpers.js';
import { createApprovedServer, createServer } from '../helpers.js';
import { createKey, sendHeartbeat } from './helpers.js';

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

const list = (serverId: string, by: TestUser | null) =>
  t.app.inject({ method: 'GET', url: `/servers/${serverId}/keys`, ...(by ? { headers: by.headers } : {}) });
const create = (serverId: string, by: TestUser | null, payload: unknown = { name: 'lobby' }) =>
  t.app.inject({
    method: 'POST',
    url: `/servers/${serverId}/keys`,
    ...(by ? { headers: by.headers } : {}),
    payload: payload as Record<string, unknown>,
  });
const remove = (serverId: string, keyId: string, by: TestUser | null) =>
  t.app.inject({
    method: 'DELETE',
    url: `/servers/${serverId}/keys/${keyId}`,
    ...(by ? { headers: by.headers } : {}),
  });

describe('server keys', () => {
  it('creates a key shown once, stored as a digest, listed without the secret', async () => {
    const server = await createServer(t.app, p.user);
    const response = await create(server.id, p.user, { name: 'lobby-1' });
    expect(response.statusCode, response.body).toBe(201);
    const created = response.json() as { id: string; name: string; key: string; createdAt: string };
    expect(created).toEqual({
      id: expect.any(String),
      name: 'lobby-1',
      key: expect.stringMatching(/^sk_[0-9A-Za-z]{40}$/),
      createdAt: t.clock.now().toISOString(),
    });
    const row = await t.app.context.database.db
      .selectFrom('server_keys')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(digest(created.key));
    expect(JSON.stringify(row)).not.toContain(created.key);

    const listed = await list(server.id, p.user);
    expect(listed.statusCode).toBe(200);
    expect(listed.json()).toEqual({
      keys: [
        {
          id: created.id,
          name: 'lobby-1',
          prefix: created.key.slice(0, 7),
          createdAt: created.createdAt,
          lastUsedAt: null,
        },
      ],
    });
    expect(listed.body).not.toContain(created.key);
    expect(listed.body).not.toContain(row.key_hash);
  });

  it('allows at most 5 keys per server (409 LIMIT_REACHED), also under concurrency', async () => {
    const server = await createServer(t.app, p.user);
    const responses = await Promise.all(Array.from({ length: 8 }, () => create(server.id, p.user)));
    expect(responses.filter((r) => r.statusCode === 201)).toHaveLength(5);
    for (const refused of responses.filter((r) => r.statusCode !== 201)) {
      expect(expectError(refused, 409, 'LIMIT_REACHED').details).toEqual({ limit: 5 });
    }
    expect(((await list(server.id, p.user)).json() as { keys: unknown[] }).keys).toHaveLength(5);
    // Another server has its own five.
    const other = await createServer(t.app, p.user);
    expect((await create(other.id, p.user)).statusCode).toBe(201);
  });

  it('deletes a key: 204, gone from the list, its heartbeats refused at once', async () => {
    const server = await createServer(t.app, p.user);
    const key = await createKey(t.app, p.user, server.id);
    expect((await sendHeartbeat(t.app, key.key)).statusCode).toBe(200);
    expect((await remove(server.id, key.id, p.user)).statusCode).toBe(204);
    expect(((await list(server.id, p.user)).json() as { keys: unknown[] }).keys).toEqual([]);
    t.clock.advance(30_000);
    expectError(await sendHeartbeat(t.app, key.key), 401, 'UNAUTHORIZED');
    expectError(await remove(server.id, key.id, p.user), 404, 'NOT_FOUND');
  });

  it("checks a nested key id against its server: another server's key is a 404 and stays", async () => {
    const mine = await createServer(t.app, p.user);
    const theirs = await createServer(t.app, p.stranger);
    const theirKey = await createKey(t.app, p.stranger, theirs.id);
    const myOtherServer = await createServer(t.app, p.user);
    const myOtherKey = await createKey(t.app, p.user, myOtherServer.id);
    expectError(await remove(mine.id, theirKey.id, p.user), 404, 'NOT_FOUND');
    expectError(await remove(mine.id, myOtherKey.id, p.user), 404, 'NOT_FOUND');
    expectError(await remove(mine.id, 'not-a-key', p.user), 404, 'NOT_FOUND');
    expect(((await list(theirs.id, p.stranger)).json() as { keys: unknown[] }).keys).toHaveLength(1);
    expect(((await list(myOtherServer.id, p.user)).json() as { keys: unknown[] }).keys).toHaveLength(1);
  });

  it('is for the owner side: team members yes; others 401, 403 (approved) or 404 (not visible)', async () => {
    const teamServer = await createApprovedServer(t.app, cast.owner, p.moderator, {
      ownerType: 'TEAM',
      ownerId: team.id,
    });
    for (const member of [cast.owner, cast.admin, cast.moderator, cast.member]) {
      expect((await create(teamServer.id, member)).statusCode).toBe(201);
      expect((await list(teamServer.id, member)).statusCode).toBe(200);
    }
    const key = await createKey(t.app, cast.owner, (await createServer(t.app, cast.owner)).id);
    for (const outsider of [cast.nonMember, p.moderator, p.admin]) {
      expectError(await create(teamServer.id, outsider), 403, 'FORBIDDEN');
      expectError(await list(teamServer.id, outsider), 403, 'FORBIDDEN');
    }
    expectError(await create(teamServer.id, null), 401, 'UNAUTHORIZED');
    expectError(await list(teamServer.id, null), 401, 'UNAUTHORIZED');
    expectError(await remove(teamServer.id, key.id, null), 401, 'UNAUTHORIZED');

    const pending = await createServer(t.app, p.user);
    const pendingKey = await createKey(t.app, p.user, pending.id);
    expectError(await create(pending.id, p.stranger), 404, 'NOT_FOUND');
    expectError(await list(pending.id, p.stranger), 404, 'NOT_FOUND');
    expectError(await remove(pending.id, pendingKey.id, p.stranger), 404, 'NOT_FOUND');
    // A moderator sees a pending server but does not manage it.
    expectError(await remove(pending.id, pendingKey.id, p.moderator), 403, 'FORBIDDEN');
    expectError(await list('01900000-0000-7000-8000-000000000000', p.user), 404, 'NOT_FOUND');
    expect(((await list(pending.id, p.user)).json() as { keys: unknown[] }).keys).toHaveLength(1);
  });

  it.each([
    ['an empty name', { name: '' }],
    ['a name of 65 characters', { name: 'x'.repeat(65) }],
    ['no name', {}],
    ['a number as name', { name: 5 }],
  ])('rejects %s (400)', async (_label, payload) => {
    const server = await createServer(t.app, p.user);
    expectError(await create(server.id, p.user, payload), 400, 'INVALID_REQUEST');
  });

  it('accepts a name of 64 characters; huge or malformed ids are 400 or 404, never 5xx', async () => {
    const server = await createServer(t.app, p.user);
    expect((await create(server.id, p.user, { name: 'x'.repeat(64) })).statusCode).toBe(201);
    for (const id of ['1', '%00', 'x'.repeat(64), 'x'.repeat(65), '99999999999999999999', '-1']) {
      expect([400, 404]).toContain((await list(id, p.user)).statusCode);
      expect([400, 404]).toContain((await remove(server.id, id, p.user)).statusCode);
      expect([400, 404]).toContain((await create(id, p.user)).statusCode);
    }
  });

  it('drops fields it does not know (no mass assignment of the digest or the server)', async () => {
    const server = await createServer(t.app, p.user);
    const other = await createServer(t.app, p.user);
    const response = await create(server.id, p.user, {
      name: 'ok',
      keyHash: 'x',
      serverId: other.id,
      key: 'sk_x',
    });
    expect(response.statusCode, response.body).toBe(201);
    const created = response.json() as { id: string; key: string };
    expect(created.key).toMatch(/^sk_[0-9A-Za-z]{40}$/);
    const row = await t.app.context.database.db
      .selectFrom('server_keys')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ server_id: server.id, key_hash: digest(created.key) });
  });

  it('goes with a deleted server (cascade)', async () => {
    const server = await createServer(t.app, p.user);
    const key = await createKey(t.app, p.user, server.id);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/servers/${server.id}`,
      headers: p.user.headers,
    });
    expect(deleted.statusCode, deleted.body).toBe(204);
    const rows = await t.app.context.database.db
      .selectFrom('server_keys')
      .select('id')
      .where('id', '=', key.id)
      .execute();
    expect(rows).toEqual([]);
    expectError(await sendHeartbeat(t.app, key.key), 401, 'UNAUTHORIZED');
  });

  it('documents the routes in /openapi.json', async () => {
    const doc = await loadOpenApi(t.app);
    const keys = doc.paths['/servers/{id}/keys']!;
    const one = doc.paths['/servers/{id}/keys/{keyId}']!;
    const heartbeat = doc.paths['/servers/heartbeat']!;
    expect(keys['post']).toMatchObject({ operationId: 'createServerKey', tags: ['servers'] });
    expect(keys['get']).toMatchObject({ operationId: 'listServerKeys', tags: ['servers'] });
    expect(one['delete']).toMatchObject({ operationId: 'deleteServerKey', tags: ['servers'] });
    expect(heartbeat['post']).toMatchObject({ operationId: 'sendServerHeartbeat', tags: ['servers'] });
    for (const operation of [keys['post'], keys['get'], one['delete']]) {
      expect(operation!.security).toEqual([{ apiKey: [] }, { bearerAuth: [] }]);
      expect(operation!.summary).toBeTruthy();
    }
    expect(heartbeat['post']!.security).toEqual([]);
    expect(Object.keys(heartbeat['post']!.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '400', '401', '429']),
    );
  });
});
