// Teams themselves: create, read by slug, list and search, edit, delete, logo and banner, /teams/me.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/core/clock.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { expectError, multipart } from '../helpers/http.js';
import { hugePng, jpegImage, notAnImage, pngImage, webpImage } from '../fixtures/images.js';
import {
  createCast,
  createStaffedTeam,
  createTeam,
  expectTeamInvariants,
  getTeam,
  uniqueSlug,
} from './helpers.js';
import type { TeamBody, TeamCast } from './helpers.js';

let t: TestApp;
let cast: TeamCast;

beforeAll(async () => {
  t = await buildTestApp();
  cast = await createCast(t.app);
});
afterAll(async () => t.close());
afterEach(async () => expectTeamInvariants(t.app));

const keyOf = (url: string) => url.slice(url.indexOf('/images/') + 1);

describe('POST /teams', () => {
  it('creates the team with the caller as its one OWNER', async () => {
    const slug = uniqueSlug('create');
    const response = await t.app.inject({
      method: 'POST',
      url: '/teams',
      headers: cast.owner.headers,
      payload: { name: '  Builders Guild  ', slug, description: 'We build things' },
    });
    expect(response.statusCode, response.body).toBe(201);
    const team = response.json() as TeamBody;
    expect(team).toMatchObject({
      name: 'Builders Guild',
      slug,
      description: 'We build things',
      logoUrl: null,
      bannerUrl: null,
      ownerId: cast.owner.id,
      memberCount: 1,
      resourceCount: 0,
      serverCount: 0,
      socialLinks: [],
    });
    expect(team.createdAt).toBe(t.clock.now().toISOString());
    expect(team.members).toEqual([
      {
        userId: cast.owner.id,
        role: 'OWNER',
        teamId: team.id,
        user: {
          id: cast.owner.id,
          username: cast.owner.username,
          displayName: null,
          image: expect.any(String),
        },
        joinedAt: team.createdAt,
      },
    ]);
  });

  it('makes the description optional and never reads ownerId or counters from the body', async () => {
    const slug = uniqueSlug();
    const response = await t.app.inject({
      method: 'POST',
      url: '/teams',
      headers: cast.member.headers,
      payload: { name: 'No description', slug, ownerId: cast.owner.id, memberCount: 99 },
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({ description: null, ownerId: cast.member.id, memberCount: 1 });
  });

  it('refuses a slug that is taken (409 SLUG_TAKEN)', async () => {
    const team = await createTeam(t.app, cast.owner);
    const response = await t.app.inject({
      method: 'POST',
      url: '/teams',
      headers: cast.member.headers,
      payload: { name: 'Copycat', slug: team.slug },
    });
    expectError(response, 409, 'SLUG_TAKEN');
  });

  it.each([
    ['upper-case slug', { name: 'X', slug: 'Bad-Slug' }],
    ['slug with a leading hyphen', { name: 'X', slug: '-bad' }],
    ['slug with a double hyphen', { name: 'X', slug: 'bad--slug' }],
    ['slug too short', { name: 'X', slug: 'ab' }],
    ['slug too long', { name: 'X', slug: 'a'.repeat(65) }],
    ['missing slug', { name: 'X' }],
    ['missing name', { slug: 'valid-slug-1' }],
    ['empty name', { name: '   ', slug: 'valid-slug-2' }],
    ['name too long', { name: 'n'.repeat(101), slug: 'valid-slug-3' }],
    ['description too long', { name: 'X', slug: 'valid-slug-4', description: 'd'.repeat(251) }],
  ])('rejects a %s (400)', async (_label, payload) => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/teams',
      headers: cast.owner.headers,
      payload,
    });
    expectError(response, 400, 'INVALID_REQUEST');
  });

  it('accepts slugs of exactly 3 and 64 characters', async () => {
    for (const slug of [`a${process.pid % 10}b`, `x${'y'.repeat(55)}${String(Date.now()).slice(-8)}`]) {
      expect(slug.length === 3 || slug.length === 64).toBe(true);
      const response = await t.app.inject({
        method: 'POST',
        url: '/teams',
        headers: cast.owner.headers,
        payload: { name: 'Edge', slug },
      });
      expect(response.statusCode, response.body).toBe(201);
    }
  });
});

describe('GET /teams/slug/:slug', () => {
  it('shows members OWNER first, then by role rank, with user summaries, and the social links', async () => {
    const team = await createStaffedTeam(t.app, cast);
    await t.app.inject({
      method: 'POST',
      url: `/teams/${team.id}/social-links`,
      headers: cast.admin.headers,
      payload: { platform: 'CHAT_COMMUNITY', url: 'https://chat.example/builders' },
    });
    const shown = await getTeam(t.app, team.slug);
    expect(shown.members.map((member) => [member.userId, member.role])).toEqual([
      [cast.owner.id, 'OWNER'],
      [cast.admin.id, 'ADMIN'],
      [cast.moderator.id, 'MODERATOR'],
      [cast.member.id, 'MEMBER'],
    ]);
    expect(shown.members[1]).toMatchObject({
      teamId: team.id,
      user: { id: cast.admin.id, username: cast.admin.username },
    });
    expect(shown.memberCount).toBe(4);
    expect(shown.socialLinks).toEqual([
      { id: expect.any(String), platform: 'CHAT_COMMUNITY', url: 'https://chat.example/builders', order: 0 },
    ]);
  });

  it('answers 404 for an unknown slug', async () => {
    expectError(await t.app.inject({ method: 'GET', url: '/teams/slug/no-such-team' }), 404, 'NOT_FOUND');
  });

  it('answers with a weak ETag and 304 on If-None-Match', async () => {
    const team = await createTeam(t.app, cast.owner);
    const first = await t.app.inject({ method: 'GET', url: `/teams/slug/${team.slug}` });
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^W\//);
    const second = await t.app.inject({
      method: 'GET',
      url: `/teams/slug/${team.slug}`,
      headers: { 'if-none-match': etag },
    });
    expect(second.statusCode).toBe(304);
  });
});

describe('GET /teams', () => {
  interface ListBody {
    teams: Array<Record<string, unknown> & { id: string; name: string }>;
    total: number;
    meta: { total: number; limit: number; offset: number };
  }
  const list = async (query = '') => {
    const response = await t.app.inject({ method: 'GET', url: `/teams${query}` });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as ListBody;
  };

  it('lists newest first with counts, total and meta; total follows creations and deletions', async () => {
    const before = (await list()).total;
    const created: TeamBody[] = [];
    for (let i = 0; i < 3; i++) {
      t.clock.advance(1000);
      created.push(await createTeam(t.app, cast.owner));
    }
    const page = await list('?limit=2');
    expect(page.total).toBe(before + 3);
    expect(page.meta).toEqual({ total: before + 3, limit: 2, offset: 0 });
    expect(page.teams.map((team) => team.id)).toEqual([created[2]!.id, created[1]!.id]);
    expect(Object.keys(page.teams[0]!).sort()).toEqual(
      [
        'id',
        'name',
        'slug',
        'description',
        'logoUrl',
        'bannerUrl',
        'ownerId',
        'memberCount',
        'resourceCount',
        'serverCount',
        'createdAt',
      ].sort(),
    );
    expect(page.teams[0]).toMatchObject({
      memberCount: 1,
      resourceCount: 0,
      serverCount: 0,
      ownerId: cast.owner.id,
    });

    const next = await list('?limit=2&offset=1');
    expect(next.teams[0]!.id).toBe(created[1]!.id);
    expect(next.meta).toEqual({ total: before + 3, limit: 2, offset: 1 });

    await t.app.inject({ method: 'DELETE', url: `/teams/${created[0]!.id}`, headers: cast.owner.headers });
    expect((await list()).total).toBe(before + 2);
  });

  it('defaults to 20 per page and refuses a limit outside 1..100', async () => {
    expect((await list()).meta.limit).toBe(20);
    expectError(await t.app.inject({ method: 'GET', url: '/teams?limit=101' }), 400);
    expectError(await t.app.inject({ method: 'GET', url: '/teams?limit=0' }), 400);
    expectError(await t.app.inject({ method: 'GET', url: '/teams?offset=-1' }), 400);
  });

  it('searches names case-insensitively with a filtered total', async () => {
    const marker = `Zq${process.pid}x`;
    await createTeam(t.app, cast.owner, { name: `The ${marker} Crafters` });
    await createTeam(t.app, cast.owner, { name: `${marker.toUpperCase()} builders` });
    await createTeam(t.app, cast.owner, { name: 'Unrelated' });
    const found = await list(`?search=${marker.toLowerCase()}`);
    expect(found.total).toBe(2);
    expect(found.teams.map((team) => team.name).sort()).toEqual(
      [`${marker.toUpperCase()} builders`, `The ${marker} Crafters`].sort(),
    );
  });

  // Full-text search (issue 17, test/search/teams-users-search.test.ts): punctuation separates words and is never
  // a wildcard.
  it('treats LIKE wildcards as word separators, never as wildcards', async () => {
    const marker = `W${process.pid}`;
    await createTeam(t.app, cast.owner, { name: `${marker} 100% legit` });
    await createTeam(t.app, cast.owner, { name: `${marker} 100 percent legit` });
    await createTeam(t.app, cast.owner, { name: `${marker} under_score` });
    await createTeam(t.app, cast.owner, { name: `${marker} underXscore` });
    const names = async (search: string) =>
      (await list(`?search=${encodeURIComponent(search)}`)).teams.map((team) => team.name).sort();
    expect(await names(`${marker} 100%`)).toEqual(
      [`${marker} 100 percent legit`, `${marker} 100% legit`].sort(),
    );
    expect(await names(`${marker} percent`)).toEqual([`${marker} 100 percent legit`]);
    expect(await names('under_score')).toEqual([`${marker} under_score`]);
    expect(await names(`${marker} underx`)).toEqual([`${marker} underXscore`]);
    // Punctuation only: no search at all.
    expect((await list(`?search=${encodeURIComponent('%')}`)).total).toBe((await list()).total);
  });

  it('treats an empty search as no filter', async () => {
    const all = await list();
    expect((await list('?search=')).total).toBe(all.total);
  });
});

describe('PATCH /teams/:id', () => {
  it('edits name and description; null or empty clears the description; slug is never read', async () => {
    const team = await createTeam(t.app, cast.owner, { description: 'old' });
    t.clock.advance(60_000);
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/teams/${team.id}`,
      headers: cast.owner.headers,
      payload: {
        name: 'Renamed',
        description: 'new text',
        slug: 'hijacked-slug',
        ownerId: cast.nonMember.id,
      },
    });
    expect(response.statusCode, response.body).toBe(200);
    const updated = response.json() as TeamBody;
    expect(updated).toMatchObject({
      name: 'Renamed',
      description: 'new text',
      slug: team.slug,
      ownerId: cast.owner.id,
    });
    expect(updated.updatedAt).toBe(t.clock.now().toISOString());
    expect(updated.createdAt).toBe(team.createdAt);
    expect(updated.members).toHaveLength(1);

    for (const description of [null, '']) {
      const cleared = await t.app.inject({
        method: 'PATCH',
        url: `/teams/${team.id}`,
        headers: cast.owner.headers,
        payload: { description },
      });
      expect(cleared.json()).toMatchObject({ name: 'Renamed', description: null });
    }
  });

  it('keeps the team as is for an empty body and refuses an invalid name (400)', async () => {
    const team = await createTeam(t.app, cast.owner);
    const same = await t.app.inject({
      method: 'PATCH',
      url: `/teams/${team.id}`,
      headers: cast.owner.headers,
      payload: {},
    });
    expect(same.statusCode).toBe(200);
    expect(same.json()).toMatchObject({ name: team.name, updatedAt: team.updatedAt });
    const bad = await t.app.inject({
      method: 'PATCH',
      url: `/teams/${team.id}`,
      headers: cast.owner.headers,
      payload: { name: '' },
    });
    expectError(bad, 400);
  });
});

describe('DELETE /teams/:id', () => {
  it('deletes the team with its members, invitations, social links and images (204)', async () => {
    const team = await createStaffedTeam(t.app, cast);
    const pending = await t.app.inject({
      method: 'POST',
      url: `/teams/${team.id}/invitations`,
      headers: cast.owner.headers,
      payload: { userId: cast.nonMember.id, role: 'MEMBER' },
    });
    expect(pending.statusCode).toBe(201);
    await t.app.inject({
      method: 'POST',
      url: `/teams/${team.id}/social-links`,
      headers: cast.owner.headers,
      payload: { platform: 'WEBSITE', url: 'https://example.test' },
    });
    const upload = await multipart('logo', {
      data: await pngImage(64, 64),
      name: 'logo.png',
      type: 'image/png',
    });
    const withLogo = (
      await t.app.inject({
        method: 'POST',
        url: `/teams/${team.id}/logo`,
        headers: { ...cast.owner.headers, ...upload.headers },
        payload: upload.payload,
      })
    ).json() as TeamBody;
    const logoKey = keyOf(withLogo.logoUrl!);
    expect(await t.app.context.storage.head(logoKey)).toBeDefined();

    const response = await t.app.inject({
      method: 'DELETE',
      url: `/teams/${team.id}`,
      headers: cast.owner.headers,
    });
    expect(response.statusCode, response.body).toBe(204);
    expect(response.body).toBe('');

    expectError(await t.app.inject({ method: 'GET', url: `/teams/slug/${team.slug}` }), 404);
    const { db } = t.app.context.database;
    expect(await db.selectFrom('team_members').selectAll().where('team_id', '=', team.id).execute()).toEqual(
      [],
    );
    expect(
      await db.selectFrom('team_invitations').selectAll().where('team_id', '=', team.id).execute(),
    ).toEqual([]);
    expect(
      await db
        .selectFrom('social_links')
        .selectAll()
        .where('owner_type', '=', 'TEAM')
        .where('owner_id', '=', team.id)
        .execute(),
    ).toEqual([]);
    expect(await t.app.context.storage.head(logoKey)).toBeUndefined();

    const mine = await t.app.inject({ method: 'GET', url: '/teams/me', headers: cast.member.headers });
    expect((mine.json() as { teams: Array<{ id: string }> }).teams.map((item) => item.id)).not.toContain(
      team.id,
    );
    const invitations = await t.app.inject({
      method: 'GET',
      url: '/teams/invitations/me',
      headers: cast.nonMember.headers,
    });
    expect(
      (invitations.json() as { invitations: Array<{ team: { id: string } }> }).invitations.map(
        (i) => i.team.id,
      ),
    ).not.toContain(team.id);
    expectError(
      await t.app.inject({ method: 'DELETE', url: `/teams/${team.id}`, headers: cast.owner.headers }),
      404,
    );
  });

  it.each([
    ['resources', 'resource_count'],
    ['servers', 'server_count'],
  ] as const)('refuses while the team still owns %s (409)', async (_what, column) => {
    const team = await createTeam(t.app, cast.owner);
    // The resources and servers modules move these counters; here the fact is set directly.
    const { db } = t.app.context.database;
    await db
      .updateTable('teams')
      .set({ [column]: 1 })
      .where('id', '=', team.id)
      .execute();
    expectError(
      await t.app.inject({ method: 'DELETE', url: `/teams/${team.id}`, headers: cast.owner.headers }),
      409,
    );
    expect((await getTeam(t.app, team.slug)).id).toBe(team.id);
    await db
      .updateTable('teams')
      .set({ [column]: 0 })
      .where('id', '=', team.id)
      .execute();
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/teams/${team.id}`,
      headers: cast.owner.headers,
    });
    expect(response.statusCode).toBe(204);
  });
});

describe('logo and banner', () => {
  const upload = async (
    team: TeamBody,
    user: TestUser,
    field: 'logo' | 'banner',
    data: Buffer,
    name = 'image.png',
  ) => {
    const body = await multipart(field, { data, name });
    return t.app.inject({
      method: 'POST',
      url: `/teams/${team.id}/${field}`,
      headers: { ...user.headers, ...body.headers },
      payload: body.payload,
    });
  };

  it.each(['logo', 'banner'] as const)('uploads, replaces and removes the %s', async (field) => {
    const team = await createStaffedTeam(t.app, cast);
    const urlField = field === 'logo' ? 'logoUrl' : 'bannerUrl';
    const otherField = field === 'logo' ? 'bannerUrl' : 'logoUrl';

    const first = await upload(team, cast.admin, field, await pngImage(800, 600));
    expect(first.statusCode, first.body).toBe(200);
    const firstUrl = (first.json() as TeamBody)[urlField]!;
    expect(firstUrl).toMatch(
      new RegExp(`^${t.config.cdnUrl}/images/team-${field}s/${team.id}/[0-9a-f]+\\.png$`),
    );
    expect((first.json() as TeamBody)[otherField]).toBeNull();
    expect((first.json() as TeamBody).members).toHaveLength(4);
    expect(await t.app.context.storage.head(keyOf(firstUrl))).toMatchObject({ contentType: 'image/png' });

    const second = await upload(team, cast.owner, field, await jpegImage(300, 200), 'photo.jpg');
    expect(second.statusCode, second.body).toBe(200);
    const secondUrl = (second.json() as TeamBody)[urlField]!;
    expect(secondUrl).toMatch(/\.jpg$/);
    expect(await t.app.context.storage.head(keyOf(firstUrl))).toBeUndefined();
    expect((await getTeam(t.app, team.slug))[urlField]).toBe(secondUrl);

    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/teams/${team.id}/${field}`,
      headers: cast.admin.headers,
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect((removed.json() as TeamBody)[urlField]).toBeNull();
    expect(await t.app.context.storage.head(keyOf(secondUrl))).toBeUndefined();

    // Removing what is not there is still a success.
    const again = await t.app.inject({
      method: 'DELETE',
      url: `/teams/${team.id}/${field}`,
      headers: cast.owner.headers,
    });
    expect(again.statusCode).toBe(200);
  });

  it('scales a logo to fit 512x512', async () => {
    const team = await createTeam(t.app, cast.owner);
    const response = await upload(team, cast.owner, 'logo', await webpImage(1024, 768));
    const stored = await t.app.context.storage.get(keyOf((response.json() as TeamBody).logoUrl!));
    const chunks: Buffer[] = [];
    for await (const chunk of stored!.body) chunks.push(chunk as Buffer);
    const sharp = (await import('sharp')).default;
    expect(await sharp(Buffer.concat(chunks)).metadata()).toMatchObject({
      format: 'webp',
      width: 512,
      height: 384,
    });
  });

  it('refuses a file that is not an accepted image (415), too many pixels (413), or no file (400)', async () => {
    const team = await createTeam(t.app, cast.owner);
    expectError(
      await upload(team, cast.owner, 'logo', notAnImage(), 'doc.pdf'),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expectError(await upload(team, cast.owner, 'banner', await hugePng()), 413, 'PAYLOAD_TOO_LARGE');
    const empty = await multipart('logo', undefined, { note: 'no file' });
    expectError(
      await t.app.inject({
        method: 'POST',
        url: `/teams/${team.id}/logo`,
        headers: { ...cast.owner.headers, ...empty.headers },
        payload: empty.payload,
      }),
      400,
    );
    const wrongField = await multipart('banner', { data: await pngImage(10, 10), name: 'a.png' });
    expectError(
      await t.app.inject({
        method: 'POST',
        url: `/teams/${team.id}/logo`,
        headers: { ...cast.owner.headers, ...wrongField.headers },
        payload: wrongField.payload,
      }),
      400,
    );
    expect((await getTeam(t.app, team.slug)).logoUrl).toBeNull();
  });

  it('refuses files over 5 MiB (413)', async () => {
    const team = await createTeam(t.app, cast.owner);
    const big = Buffer.concat([await pngImage(16, 16), Buffer.alloc(5 * 1024 * 1024 + 10)]);
    expectError(await upload(team, cast.owner, 'logo', big), 413, 'PAYLOAD_TOO_LARGE');
  });
});

describe('GET /teams/me', () => {
  it('lists your teams with your role, by name', async () => {
    const user: TestUser = await createUser(t.app);
    const alpha = await createTeam(t.app, user, { name: 'Alpha squad' });
    const beta = await createTeam(t.app, cast.owner, { name: 'Beta squad' });
    const invitation = await t.app.inject({
      method: 'POST',
      url: `/teams/${beta.id}/invitations`,
      headers: cast.owner.headers,
      payload: { userId: user.id, role: 'MODERATOR' },
    });
    await t.app.inject({
      method: 'POST',
      url: `/teams/invitations/${(invitation.json() as { id: string }).id}/respond`,
      headers: user.headers,
      payload: { accept: true },
    });
    const response = await t.app.inject({ method: 'GET', url: '/teams/me', headers: user.headers });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      teams: [
        { id: alpha.id, name: 'Alpha squad', slug: alpha.slug, role: 'OWNER', logoUrl: null },
        { id: beta.id, name: 'Beta squad', slug: beta.slug, role: 'MODERATOR', logoUrl: null },
      ],
    });
  });

  it('is not captured by /teams/:id routes', async () => {
    expectError(await t.app.inject({ method: 'GET', url: '/teams/me' }), 401);
    const outsider = await createUser(t.app);
    expect(
      (await t.app.inject({ method: 'GET', url: '/teams/me', headers: outsider.headers })).json(),
    ).toEqual({
      teams: [],
    });
  });
});

describe('time', () => {
  it('stamps createdAt and updatedAt from the injected clock', async () => {
    t.clock.advance(3 * DAY_MS);
    const team = await createTeam(t.app, cast.owner);
    expect(team.createdAt).toBe(t.clock.now().toISOString());
    expect(team.updatedAt).toBe(team.createdAt);
  });
});
