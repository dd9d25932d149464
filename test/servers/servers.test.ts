// Servers themselves: create (owners, defaults, validation), read by slug and id, edit, delete.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas } from '../helpers/factories.js';
import type { Personas } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import { createCast, createStaffedTeam } from '../teams/helpers.js';
import type { TeamBody, TeamCast } from '../teams/helpers.js';
import {
  catalogs,
  createApprovedServer,
  createServer,
  expectServerInvariants,
  getServer,
  moderate,
  uniqueServerSlug,
} from './helpers.js';
import type { CatalogRef, ServerBody } from './helpers.js';

let t: TestApp;
let p: Personas;
let cast: TeamCast;
let team: TeamBody;
let seeded: { tags: CatalogRef[]; categories: CatalogRef[] };

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
  cast = await createCast(t.app);
  team = await createStaffedTeam(t.app, cast);
  seeded = await catalogs(t.app);
});
afterAll(async () => t.close());
afterEach(async () => expectServerInvariants(t.app));

const teamServerCount = async (teamId: string) =>
  (
    await t.app.context.database.db
      .selectFrom('teams')
      .select('server_count')
      .where('id', '=', teamId)
      .executeTakeFirstOrThrow()
  ).server_count;

describe('POST /servers', () => {
  it('creates a PENDING server owned by the caller, with defaults', async () => {
    const slug = uniqueServerSlug('create');
    const response = await t.app.inject({
      method: 'POST',
      url: '/servers',
      headers: p.user.headers,
      payload: {
        name: '  Skyfall Network  ',
        slug,
        shortDescription: 'Islands in the sky',
        description: '# Welcome\nJoin us.',
        ip: 'play.skyfall.example',
        tagIds: [seeded.tags[1]!.id, seeded.tags[0]!.id],
        categoryIds: [seeded.categories[0]!.id],
      },
    });
    expect(response.statusCode, response.body).toBe(201);
    const server = response.json() as ServerBody;
    expect(server).toMatchObject({
      name: 'Skyfall Network',
      slug,
      shortDescription: 'Islands in the sky',
      description: '# Welcome\nJoin us.',
      ip: 'play.skyfall.example',
      port: 5520,
      online: false,
      onlinePlayers: 0,
      maxPlayers: 0,
      rank: null,
      status: 'PENDING',
      statusReason: null,
      logoUrl: null,
      bannerUrl: null,
      ownerType: 'USER',
      ownerId: p.user.id,
      owner: { type: 'USER', id: p.user.id, username: p.user.username, displayName: null },
      lastReportedAt: null,
    });
    expect(server.owner['image']).toEqual(expect.stringContaining('http'));
    expect(server.createdAt).toBe(t.clock.now().toISOString());
    expect(server.updatedAt).toBe(server.createdAt);
    // Tags by name, categories by their order.
    expect(server.tags.map((tag) => tag.id)).toEqual(
      [seeded.tags[0]!, seeded.tags[1]!].sort((a, b) => a.name.localeCompare(b.name)).map((tag) => tag.id),
    );
    expect(server.categories).toEqual([seeded.categories[0]]);
  });

  it('never reads status, rank, counters or someone else as owner from the body', async () => {
    const slug = uniqueServerSlug();
    const response = await t.app.inject({
      method: 'POST',
      url: '/servers',
      headers: p.user.headers,
      payload: { name: 'Sneaky', slug, ip: '203.0.113.9', status: 'APPROVED', rank: 1, onlinePlayers: 50 },
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({ status: 'PENDING', rank: null, onlinePlayers: 0 });

    const forOther = await t.app.inject({
      method: 'POST',
      url: '/servers',
      headers: p.user.headers,
      payload: { name: 'Not mine', slug: uniqueServerSlug(), ip: '203.0.113.9', ownerId: p.stranger.id },
    });
    expectError(forOther, 403, 'FORBIDDEN');
  });

  it('accepts an explicit USER owner that is the caller, and a custom port', async () => {
    const server = await createServer(t.app, p.user, { ownerType: 'USER', ownerId: p.user.id, port: 25565 });
    expect(server).toMatchObject({ ownerType: 'USER', ownerId: p.user.id, port: 25565 });
  });

  it.each(['owner', 'admin'] as const)(
    'lets the team %s create a team server (server_count moves)',
    async (who) => {
      const before = await teamServerCount(team.id);
      const server = await createServer(t.app, cast[who], { ownerType: 'TEAM', ownerId: team.id });
      expect(server).toMatchObject({
        ownerType: 'TEAM',
        ownerId: team.id,
        owner: { type: 'TEAM', id: team.id, name: team.name, slug: team.slug, logoUrl: null },
      });
      expect(await teamServerCount(team.id)).toBe(before + 1);
    },
  );

  it.each(['moderator', 'member', 'nonMember'] as const)(
    'refuses a team server from a team %s (403)',
    async (who) => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/servers',
        headers: cast[who].headers,
        payload: {
          name: 'X',
          slug: uniqueServerSlug(),
          ip: '203.0.113.1',
          ownerType: 'TEAM',
          ownerId: team.id,
        },
      });
      expectError(response, 403, 'FORBIDDEN');
    },
  );

  it('needs ownerId for a TEAM owner (400) and an existing team (404)', async () => {
    const base = { name: 'X', ip: '203.0.113.1', ownerType: 'TEAM' };
    expectError(
      await t.app.inject({
        method: 'POST',
        url: '/servers',
        headers: cast.owner.headers,
        payload: { ...base, slug: uniqueServerSlug() },
      }),
      400,
      'INVALID_REQUEST',
    );
    expectError(
      await t.app.inject({
        method: 'POST',
        url: '/servers',
        headers: cast.owner.headers,
        payload: { ...base, slug: uniqueServerSlug(), ownerId: '01900000-0000-7000-8000-000000000000' },
      }),
      404,
      'NOT_FOUND',
    );
  });

  it('refuses a slug that is taken (409 SLUG_TAKEN)', async () => {
    const server = await createServer(t.app, p.user);
    const response = await t.app.inject({
      method: 'POST',
      url: '/servers',
      headers: p.stranger.headers,
      payload: { name: 'Copy', slug: server.slug, ip: '203.0.113.1' },
    });
    expectError(response, 409, 'SLUG_TAKEN');
  });

  it('needs authentication (401)', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/servers',
      payload: { name: 'X', slug: uniqueServerSlug(), ip: '203.0.113.1' },
    });
    expectError(response, 401, 'UNAUTHORIZED');
  });

  it.each([
    ['an IPv4 address', '198.51.100.20'],
    ['an IPv6 address', '2001:db8::20'],
    ['a host name', 'mc.example.net'],
  ])('accepts %s as ip', async (_label, ip) => {
    expect((await createServer(t.app, p.user, { ip })).ip).toBe(ip);
  });

  const invalid: Array<[string, Record<string, unknown>]> = [
    ['missing ip', { ip: undefined }],
    ['empty ip', { ip: '' }],
    ['ip with a port', { ip: 'play.example.com:5520' }],
    ['ip that is a URL', { ip: 'https://play.example.com' }],
    ['malformed IPv4', { ip: '300.1.1.1' }],
    ['bracketed IPv6', { ip: '[2001:db8::1]' }],
    ['host name with an underscore', { ip: 'my_server.example.com' }],
    ['port 0', { port: 0 }],
    ['port 65536', { port: 65536 }],
    ['port as a string', { port: '5520' }],
    ['fractional port', { port: 55.5 }],
    ['missing name', { name: undefined }],
    ['blank name', { name: '   ' }],
    ['name too long', { name: 'n'.repeat(101) }],
    ['missing slug', { slug: undefined }],
    ['upper-case slug', { slug: 'Bad-Slug' }],
    ['short description too long', { shortDescription: 's'.repeat(251) }],
    ['description too long', { description: 'd'.repeat(50_001) }],
    ['ownerType not USER or TEAM', { ownerType: 'GUILD' }],
    ['too many tags', { tagIds: Array.from({ length: 11 }, (_, i) => `tag-${i}`) }],
    ['too many categories', { categoryIds: Array.from({ length: 6 }, (_, i) => `category-${i}`) }],
    ['a repeated tag', { tagIds: ['same', 'same'] }],
    ['an unknown tag id', { tagIds: ['01900000-0000-7000-8000-00000000aaaa'] }],
    ['an unknown category id', { categoryIds: ['01900000-0000-7000-8000-00000000bbbb'] }],
  ];
  it.each(invalid)('rejects %s (400)', async (_label, change) => {
    const payload: Record<string, unknown> = {
      name: 'Valid',
      slug: uniqueServerSlug(),
      ip: '203.0.113.5',
      ...change,
    };
    for (const key of Object.keys(payload)) if (payload[key] === undefined) delete payload[key];
    const response = await t.app.inject({
      method: 'POST',
      url: '/servers',
      headers: p.user.headers,
      payload,
    });
    expectError(response, 400, 'INVALID_REQUEST');
  });

  it('names the unknown catalog ids', async () => {
    const unknown = '01900000-0000-7000-8000-00000000cccc';
    const response = await t.app.inject({
      method: 'POST',
      url: '/servers',
      headers: p.user.headers,
      payload: {
        name: 'X',
        slug: uniqueServerSlug(),
        ip: '203.0.113.5',
        tagIds: [seeded.tags[0]!.id, unknown],
      },
    });
    const body = expectError(response, 400, 'INVALID_REQUEST');
    expect(body.details).toMatchObject({ unknownIds: [unknown] });
  });
});

describe('GET /servers/slug/:slug and /servers/:id', () => {
  it('shows an APPROVED server to anyone', async () => {
    const server = await createApprovedServer(t.app, p.user, p.moderator);
    const bySlug = await t.app.inject({ method: 'GET', url: `/servers/slug/${server.slug}` });
    expect(bySlug.statusCode, bySlug.body).toBe(200);
    expect(bySlug.json()).toEqual(server);
    const byId = await t.app.inject({ method: 'GET', url: `/servers/${server.id}` });
    expect(byId.json()).toEqual(server);
  });

  it('hides a non-approved server from everyone but the owner side and moderators (404)', async () => {
    const server = await createServer(t.app, p.user);
    for (const path of [`/servers/slug/${server.slug}`, `/servers/${server.id}`]) {
      expectError(await t.app.inject({ method: 'GET', url: path }), 404, 'NOT_FOUND');
      expectError(await t.app.inject({ method: 'GET', url: path, headers: p.stranger.headers }), 404);
      for (const viewer of [p.user, p.moderator, p.admin, p.superAdmin]) {
        const response = await t.app.inject({ method: 'GET', url: path, headers: viewer.headers });
        expect(response.statusCode, response.body).toBe(200);
      }
    }
  });

  it('shows a team server to every team member while it is not approved', async () => {
    const server = await createServer(t.app, cast.owner, { ownerType: 'TEAM', ownerId: team.id });
    for (const member of [cast.owner, cast.admin, cast.moderator, cast.member]) {
      expect((await getServer(t.app, server.slug, member)).id).toBe(server.id);
    }
    expectError(
      await t.app.inject({
        method: 'GET',
        url: `/servers/slug/${server.slug}`,
        headers: cast.nonMember.headers,
      }),
      404,
    );
  });

  it('is 404 for an unknown slug or id', async () => {
    expectError(await t.app.inject({ method: 'GET', url: '/servers/slug/no-such-server' }), 404, 'NOT_FOUND');
    expectError(
      await t.app.inject({ method: 'GET', url: '/servers/01900000-0000-7000-8000-000000000000' }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('PATCH /servers/:id', () => {
  it('edits the fields it is given and replaces tag and category lists', async () => {
    const server = await createServer(t.app, p.user, {
      shortDescription: 'Old',
      description: 'Old text',
      tagIds: [seeded.tags[0]!.id, seeded.tags[1]!.id],
      categoryIds: [seeded.categories[0]!.id],
    });
    t.clock.advance(60_000);
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/servers/${server.id}`,
      headers: p.user.headers,
      payload: {
        name: 'New name',
        shortDescription: null,
        description: '',
        ip: '2001:db8::99',
        port: 19132,
        tagIds: [seeded.tags[1]!.id, seeded.tags[2]!.id],
        categoryIds: [],
        slug: 'ignored-slug',
        ownerId: p.stranger.id,
      },
    });
    expect(response.statusCode, response.body).toBe(200);
    const updated = response.json() as ServerBody;
    expect(updated).toMatchObject({
      name: 'New name',
      slug: server.slug,
      shortDescription: null,
      description: null,
      ip: '2001:db8::99',
      port: 19132,
      ownerId: p.user.id,
      status: 'PENDING',
      categories: [],
    });
    expect(updated.tags.map((tag) => tag.id).sort()).toEqual([seeded.tags[1]!.id, seeded.tags[2]!.id].sort());
    expect(updated.updatedAt).toBe(t.clock.now().toISOString());
    expect(updated.createdAt).toBe(server.createdAt);
    // The read adds the owner side's queue position of a PENDING server (spec/extensions.md §4).
    const { moderation, ...read } = (await getServer(t.app, server.slug, p.user)) as ServerBody & {
      moderation?: unknown;
    };
    expect(read).toEqual(updated);
    expect(moderation).toMatchObject({ position: expect.any(Number) });
  });

  it('leaves what is not in the body alone (an empty body changes nothing)', async () => {
    const server = await createServer(t.app, p.user, { tagIds: [seeded.tags[3]!.id] });
    t.clock.advance(1000);
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/servers/${server.id}`,
      headers: p.user.headers,
      payload: {},
    });
    expect(response.json()).toEqual(server);
    const renamed = await t.app.inject({
      method: 'PATCH',
      url: `/servers/${server.id}`,
      headers: p.user.headers,
      payload: { name: 'Only the name' },
    });
    expect(renamed.json()).toMatchObject({ name: 'Only the name', tags: server.tags, ip: server.ip });
  });

  it('moves tag and category usage when an APPROVED server changes them', async () => {
    const [a, b] = [seeded.tags[4]!, seeded.tags[5]!];
    const server = await createApprovedServer(t.app, p.user, p.moderator, { tagIds: [a.id] });
    const usage = async (slug: string) =>
      ((await t.app.inject({ method: 'GET', url: `/server-tags/${slug}` })).json() as { usageCount: number })
        .usageCount;
    const [beforeA, beforeB] = [await usage(a.slug), await usage(b.slug)];
    await t.app.inject({
      method: 'PATCH',
      url: `/servers/${server.id}`,
      headers: p.user.headers,
      payload: { tagIds: [b.id] },
    });
    expect(await usage(a.slug)).toBe(beforeA - 1);
    expect(await usage(b.slug)).toBe(beforeB + 1);
  });

  it('sends a REJECTED server back to PENDING, recorded as RESUBMIT', async () => {
    const server = await createServer(t.app, p.user);
    await moderate(t.app, p.moderator, server.id, 'reject', { reason: 'Wrong address' });
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/servers/${server.id}`,
      headers: p.user.headers,
      payload: { ip: 'fixed.example.com' },
    });
    expect(response.json()).toMatchObject({ status: 'PENDING', statusReason: 'Wrong address' });
    const history = await t.app.inject({
      method: 'GET',
      url: `/servers/moderation/${server.id}/history`,
      headers: p.moderator.headers,
    });
    expect(
      (history.json() as { history: Array<Record<string, unknown>> }).history.map((e) => e['action']),
    ).toEqual(['REJECT', 'RESUBMIT']);
  });

  it.each(['APPROVED', 'SUSPENDED'] as const)('keeps a %s server in its status', async (status) => {
    const server = await createApprovedServer(t.app, p.user, p.moderator);
    if (status === 'SUSPENDED') await moderate(t.app, p.moderator, server.id, 'suspend');
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/servers/${server.id}`,
      headers: p.user.headers,
      payload: { name: 'Renamed' },
    });
    expect(response.json()).toMatchObject({ status, name: 'Renamed' });
  });

  it.each([
    ['invalid ip', { ip: 'not a host' }],
    ['port 70000', { port: 70000 }],
    ['blank name', { name: '' }],
    ['unknown category', { categoryIds: ['01900000-0000-7000-8000-00000000dddd'] }],
  ])('rejects %s (400)', async (_label, payload) => {
    const server = await createServer(t.app, p.user);
    expectError(
      await t.app.inject({ method: 'PATCH', url: `/servers/${server.id}`, headers: p.user.headers, payload }),
      400,
      'INVALID_REQUEST',
    );
  });
});

describe('DELETE /servers/:id', () => {
  it('deletes the server with its links and history; counters follow', async () => {
    const server = await createApprovedServer(t.app, p.user, p.moderator, {
      tagIds: [seeded.tags[0]!.id],
      categoryIds: [seeded.categories[1]!.id],
    });
    const link = await t.app.inject({
      method: 'POST',
      url: `/servers/${server.id}/social-links`,
      headers: p.user.headers,
      payload: { platform: 'WEBSITE', url: 'https://server.example' },
    });
    expect(link.statusCode).toBe(201);
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/servers/${server.id}`,
      headers: p.user.headers,
    });
    expect(response.statusCode, response.body).toBe(204);
    expect(response.body).toBe('');
    expectError(
      await t.app.inject({ method: 'GET', url: `/servers/${server.id}`, headers: p.admin.headers }),
      404,
    );
    const { db } = t.app.context.database;
    expect(
      await db.selectFrom('social_links').selectAll().where('owner_id', '=', server.id).execute(),
    ).toEqual([]);
    expect(
      await db
        .selectFrom('server_moderation_events')
        .selectAll()
        .where('server_id', '=', server.id)
        .execute(),
    ).toEqual([]);
    expect(
      await db.selectFrom('server_tag_links').selectAll().where('server_id', '=', server.id).execute(),
    ).toEqual([]);
  });

  it("moves the team's server_count, which lets the team be deleted once it owns nothing", async () => {
    const ownTeam = await createStaffedTeam(t.app, cast);
    const server = await createServer(t.app, cast.owner, { ownerType: 'TEAM', ownerId: ownTeam.id });
    const refused = await t.app.inject({
      method: 'DELETE',
      url: `/teams/${ownTeam.id}`,
      headers: cast.owner.headers,
    });
    expectError(refused, 409, 'TEAM_NOT_EMPTY');
    // A team ADMIN holds owner rights on team servers, delete included.
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/servers/${server.id}`,
      headers: cast.admin.headers,
    });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect(await teamServerCount(ownTeam.id)).toBe(0);
    const teamGone = await t.app.inject({
      method: 'DELETE',
      url: `/teams/${ownTeam.id}`,
      headers: cast.owner.headers,
    });
    expect(teamGone.statusCode, teamGone.body).toBe(204);
  });

  it('is 404 for an unknown server and 401 without credentials', async () => {
    const unknown = '01900000-0000-7000-8000-000000000000';
    expectError(
      await t.app.inject({ method: 'DELETE', url: `/servers/${unknown}`, headers: p.user.headers }),
      404,
    );
    expectError(await t.app.inject({ method: 'DELETE', url: `/servers/${unknown}` }), 401);
  });
});
