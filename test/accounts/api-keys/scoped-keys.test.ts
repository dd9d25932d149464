// Scoped, checkable API keys (spec/extensions.md §5) beyond the matrix: creation rules, team-bound keys on real
// objects, rotation, the documented checksum, old-format keys, lastUsedIp, and the OpenAPI document.
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digest } from '../../../src/core/auth/credentials.js';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { createUser } from '../../helpers/factories.js';
import type { TestUser } from '../../helpers/factories.js';
import { expectError } from '../../helpers/http.js';
import { createResource } from '../../resources/helpers.js';
import { addMember, createTeam } from '../../teams/helpers.js';

/** The expression docs/api-keys.md gives to secret scanners. */
const DOCUMENTED_PATTERN = /^mk_[0-9A-Za-z]{46}$/;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The documented checksum, from Node's own CRC32: base62 of CRC32(mk_ + 40 characters), padded to 6 with '0'. */
function documentedChecksumHolds(key: string): boolean {
  if (!DOCUMENTED_PATTERN.test(key)) return false;
  let n = crc32(key.slice(0, 43));
  let out = '';
  do {
    out = BASE62[n % 62]! + out;
    n = Math.floor(n / 62);
  } while (n > 0);
  return out.padStart(6, '0') === key.slice(43);
}

interface KeyBody {
  id: string;
  name: string;
  key: string;
  prefix: string;
  scopes: string[];
  teamId: string | null;
  lastUsedAt: string | null;
  lastUsedIp: string | null;
  expiresAt: string | null;
}

describe('scoped API keys', () => {
  let t: TestApp;
  let user: TestUser;
  let moderator: TestUser;
  let teamId: string;

  beforeAll(async () => {
    t = await buildTestApp();
    [user, moderator] = await Promise.all([createUser(t.app), createUser(t.app, { role: 'MODERATOR' })]);
    const owner = await createUser(t.app);
    teamId = (await createTeam(t.app, owner)).id;
    await addMember(t.app, teamId, owner, user, 'ADMIN');
  }, 180_000);
  afterAll(async () => t?.close());

  const create = (who: { headers: Record<string, string> }, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/users/me/api-keys', headers: who.headers, payload });
  async function newKey(who: TestUser, payload: Record<string, unknown> = {}): Promise<KeyBody> {
    const res = await create(who, { name: 'k', ...payload });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as KeyBody;
  }
  const as = (key: string) => ({ headers: { 'x-api-key': key } });
  const me = (key: string) => t.app.inject({ method: 'GET', url: '/users/me', ...as(key) });

  describe('creation', () => {
    it('defaults to every scope the role allows', async () => {
      expect((await newKey(user)).scopes).toEqual(['read', 'write', 'upload']);
      expect((await newKey(moderator)).scopes).toEqual(['read', 'write', 'upload', 'moderate']);
    });

    it('keeps the asked scopes, in canonical order', async () => {
      const key = await newKey(moderator, { scopes: ['moderate', 'read'] });
      expect(key).toMatchObject({ scopes: ['read', 'moderate'], teamId: null, lastUsedIp: null });
    });

    it('refuses a scope the role does not allow (403 SCOPE_NOT_ALLOWED), unknown scopes and an empty list (400)', async () => {
      expectError(await create(user, { name: 'k', scopes: ['read', 'moderate'] }), 403, 'SCOPE_NOT_ALLOWED');
      expectError(await create(user, { name: 'k', scopes: ['root'] }), 400);
      expectError(await create(user, { name: 'k', scopes: [] }), 400);
      expectError(await create(user, { name: 'k', scopes: 'read' }), 400);
    });

    it('binds to a team the user belongs to; 404 for an unknown team, 403 for one they are not in', async () => {
      expect((await newKey(user, { teamId })).teamId).toBe(teamId);
      expectError(await create(moderator, { name: 'k', teamId }), 403, 'FORBIDDEN');
      expectError(await create(user, { name: 'k', teamId: '0190a000-0000-7000-8000-000000000000' }), 404);
    });

    it('lets a key hand out only what it holds itself (no escalation through a narrower key)', async () => {
      const writer = await newKey(user, { scopes: ['write'] });
      expectError(await create(as(writer.key), { name: 'k', scopes: ['read'] }), 403, 'SCOPE_NOT_ALLOWED');
      const made = await create(as(writer.key), { name: 'k' });
      expect(made.statusCode, made.body).toBe(201);
      expect((made.json() as KeyBody).scopes).toEqual(['write']);
    });
  });

  describe('enforcement', () => {
    it('answers 403 INSUFFICIENT_SCOPE with details.required, before the body is parsed', async () => {
      const reader = await newKey(user, { scopes: ['read'] });
      const res = await t.app.inject({
        method: 'POST',
        url: '/teams',
        headers: { ...as(reader.key).headers, 'content-type': 'application/json' },
        payload: '{"this is": not json',
      });
      expectError(res, 403, 'INSUFFICIENT_SCOPE');
      expect((res.json() as { details: unknown }).details).toEqual({ required: 'write' });
      expect((await me(reader.key)).statusCode).toBe(200);
    });

    it('gives session tokens every scope', async () => {
      const login = await t.app.inject({
        method: 'POST',
        url: '/auth/login',
        payload: { login: moderator.username, password: moderator.password },
      });
      expect(login.statusCode, login.body).toBe(200);
      const token = (login.json() as { token: string }).token;
      const res = await t.app.inject({
        method: 'GET',
        url: '/resources/moderation/status/PENDING',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.statusCode, res.body).toBe(200);
    });

    it('lets a key without moderate act as a user inside services too (a pending resource is hidden)', async () => {
      const pending = await createResource(t.app, user);
      const reader = await newKey(moderator, { scopes: ['read'] });
      const full = await newKey(moderator);
      expectError(
        await t.app.inject({ method: 'GET', url: `/resources/${pending.id}`, ...as(reader.key) }),
        404,
      );
      const seen = await t.app.inject({ method: 'GET', url: `/resources/${pending.id}`, ...as(full.key) });
      expect(seen.statusCode, seen.body).toBe(200);
    });
  });

  describe('team-bound keys', () => {
    it('change the team and its resources, and nothing else; reads act as the user', async () => {
      const key = (await newKey(user, { teamId })).key;
      const own = await createResource(t.app, user);
      const teams = await createResource(t.app, user, { ownerType: 'TEAM', ownerId: teamId });
      const patch = (id: string) =>
        t.app.inject({ method: 'PATCH', url: `/resources/${id}`, ...as(key), payload: { name: 'Renamed' } });

      const allowed = await patch(teams.id);
      expect(allowed.statusCode, allowed.body).toBe(200);
      const refused = await patch(own.id);
      expectError(refused, 403, 'INSUFFICIENT_SCOPE');
      expect((refused.json() as { details: unknown }).details).toEqual({ required: 'team' });
      const unchanged = await t.app.inject({ method: 'GET', url: `/resources/${own.id}`, ...as(key) });
      expect(unchanged.statusCode, unchanged.body).toBe(200);
      expect((unchanged.json() as { name: string }).name).toBe(own.name);

      const teamPatch = await t.app.inject({
        method: 'PATCH',
        url: `/teams/${teamId}`,
        ...as(key),
        payload: { description: 'Edited by the team key' },
      });
      expect(teamPatch.statusCode, teamPatch.body).toBe(200);

      const body = { name: 'By key', slug: `by-key-${Date.now()}`, shortDescription: 'x', type: 'MOD' };
      const forSelf = await t.app.inject({ method: 'POST', url: '/resources', ...as(key), payload: body });
      expectError(forSelf, 403, 'INSUFFICIENT_SCOPE');
      const forTeam = await t.app.inject({
        method: 'POST',
        url: '/resources',
        ...as(key),
        payload: { ...body, ownerType: 'TEAM', ownerId: teamId },
      });
      expect(forTeam.statusCode, forTeam.body).toBe(201);

      // Not team-aware: refused whatever the body.
      expectError(await create(as(key), { name: 'k' }), 403, 'INSUFFICIENT_SCOPE');
    });
  });

  describe('rotation', () => {
    it('gives the same record a new secret; the old one fails on the very next request', async () => {
      const original = await newKey(user, { name: 'ci', scopes: ['read', 'write'], teamId });
      expect((await me(original.key)).statusCode).toBe(200);
      const res = await t.app.inject({
        method: 'POST',
        url: `/users/me/api-keys/${original.id}/rotate`,
        headers: user.headers,
      });
      expect(res.statusCode, res.body).toBe(200);
      const rotated = res.json() as KeyBody;
      expect(rotated).toMatchObject({ id: original.id, name: 'ci', scopes: ['read', 'write'], teamId });
      expect(rotated.key).not.toBe(original.key);
      expect(rotated.key.startsWith(rotated.prefix)).toBe(true);
      expect(documentedChecksumHolds(rotated.key)).toBe(true);
      expectError(await me(original.key), 401);
      expect((await me(rotated.key)).statusCode).toBe(200);
    });

    it('answers 404 for a key of someone else and 403 when a narrower key would rotate a wider one', async () => {
      const other = await newKey(moderator);
      expectError(
        await t.app.inject({
          method: 'POST',
          url: `/users/me/api-keys/${other.id}/rotate`,
          headers: user.headers,
        }),
        404,
      );
      const writer = await newKey(user, { scopes: ['write'] });
      const wide = await newKey(user);
      expectError(
        await t.app.inject({
          method: 'POST',
          url: `/users/me/api-keys/${wide.id}/rotate`,
          ...as(writer.key),
        }),
        403,
        'SCOPE_NOT_ALLOWED',
      );
    });
  });

  describe('checksums and old keys', () => {
    it('the documented expression and CRC accept a real key and reject a one-character change, which is 401', async () => {
      const { key } = await newKey(user);
      expect(documentedChecksumHolds(key)).toBe(true);
      const last = key.at(-1)!;
      const changed = key.slice(0, -1) + (last === 'a' ? 'b' : 'a');
      expect(documentedChecksumHolds(changed)).toBe(false);
      const inBody = key.slice(0, 10) + (key[10] === 'a' ? 'b' : 'a') + key.slice(11);
      expect(documentedChecksumHolds(inBody)).toBe(false);
      expectError(await me(changed), 401);
      expectError(await me(inBody), 401);
    });

    it('keeps old-format keys (mk_ + 40, no checksum) working, with every scope their role allows', async () => {
      const old = `mk_${'Q'.repeat(20)}${'r'.repeat(20)}`;
      await t.app.context.database.db
        .insertInto('api_keys')
        .values({
          id: '0190a000-0000-7000-8000-0000000000aa',
          user_id: user.id,
          name: 'legacy',
          prefix: old.slice(0, 7),
          key_hash: digest(old),
          created_at: t.clock.now().toISOString(),
          last_used_at: null,
          expires_at: null,
          revoked_at: null,
          scopes: 'read write upload moderate admin',
          team_id: null,
          last_used_ip: null,
        })
        .execute();
      expect((await me(old)).statusCode).toBe(200);
      const write = await t.app.inject({
        method: 'PATCH',
        url: '/users/me',
        ...as(old),
        payload: { bio: 'still here' },
      });
      expect(write.statusCode, write.body).toBe(200);
      const list = await t.app.inject({ method: 'GET', url: '/users/me/api-keys', headers: user.headers });
      const legacy = (list.json() as { apiKeys: KeyBody[] }).apiKeys.find((k) => k.name === 'legacy');
      expect(legacy?.scopes).toEqual(['read', 'write', 'upload']);
    });
  });

  it('records lastUsedAt with lastUsedIp, at most once a minute', async () => {
    const key = await newKey(user, { name: 'ip' });
    const use = (ip: string) =>
      t.app.inject({ method: 'GET', url: '/users/me', ...as(key.key), remoteAddress: ip });
    const shown = async () =>
      (
        (await t.app.inject({ method: 'GET', url: '/users/me/api-keys', headers: user.headers })).json() as {
          apiKeys: KeyBody[];
        }
      ).apiKeys.find((k) => k.id === key.id)!;
    await use('203.0.113.7');
    const first = await shown();
    expect(first).toMatchObject({ lastUsedIp: '203.0.113.7', lastUsedAt: t.clock.now().toISOString() });
    t.clock.advance(30_000);
    await use('198.51.100.9');
    expect(await shown()).toMatchObject({ lastUsedIp: '203.0.113.7', lastUsedAt: first.lastUsedAt });
    t.clock.advance(31_000);
    await use('198.51.100.9');
    expect(await shown()).toMatchObject({
      lastUsedIp: '198.51.100.9',
      lastUsedAt: t.clock.now().toISOString(),
    });
  });

  it('documents the key routes and fields in /openapi.json', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { operationId?: string; security?: unknown; responses: object }>>;
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    };
    const rotate = doc.paths['/users/me/api-keys/{keyId}/rotate']?.['post'];
    expect(rotate?.operationId).toBe('rotateApiKey');
    expect(rotate?.security).toBeDefined();
    expect(Object.keys(rotate!.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '404']));
    expect(Object.keys(doc.components.schemas['ApiKey']!.properties)).toEqual(
      expect.arrayContaining(['scopes', 'teamId', 'lastUsedAt', 'lastUsedIp', 'expiresAt']),
    );
  });
});
