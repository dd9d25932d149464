// Resource lists: the public catalogue (filters, search, sorts, pages, totals), yours, a user's and a team's;
// non-approved resources never reach the public.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { expectError } from '../helpers/http.js';
import {
  createResource,
  createResourceCast,
  expectResourceInvariants,
  headersOf,
  moderate,
  readCatalogs,
  resourceFor,
} from './helpers.js';
import type { Catalogs, ResourceBody, ResourceCast, ResourceListBody, ResourcePersona } from './helpers.js';

let t: TestApp;
let cast: ResourceCast;
let catalogs: Catalogs;
/** The APPROVED resources, oldest first. */
let alpha: ResourceBody;
let beta: ResourceBody;
let charlie: ResourceBody;
let delta: ResourceBody;
let teamApproved: ResourceBody;
/** Non-approved resources whose names and catalogs match every filter used below. */
let hidden: ResourceBody[];
let teamPending: ResourceBody;

const tagId = (slug: string) => catalogs.tags.find((tag) => tag.slug === slug)!.id;
const versionId = (name: string) => catalogs.gameVersions.find((v) => v.name === name)!.id;
const categoryOf = (type: string, index = 0) =>
  catalogs.categories.filter((c) => c.resourceType === type)[index]!;

async function approved(body: Record<string, unknown>): Promise<ResourceBody> {
  t.clock.advance(1000);
  const resource = await createResource(t.app, cast.owner, body);
  return moderate(t.app, cast.moderator, resource.id, 'APPROVE');
}

beforeAll(async () => {
  t = await buildTestApp();
  cast = await createResourceCast(t.app);
  catalogs = await readCatalogs(t.app);
  alpha = await approved({
    name: 'Alpha Furniture',
    shortDescription: 'Chairs and tables',
    type: 'MOD',
    tagIds: [tagId('technology')],
    categoryIds: [categoryOf('MOD').id],
    gameVersionIds: [versionId('1.0')],
  });
  beta = await approved({
    name: 'beta Dungeons',
    shortDescription: 'Deep 100% dungeons',
    type: 'MOD',
    tagIds: [tagId('adventure'), tagId('magic')],
    categoryIds: [categoryOf('MOD', 1).id],
    gameVersionIds: [versionId('1.2')],
  });
  charlie = await approved({
    name: 'Charlie_Economy',
    shortDescription: 'Money for everyone',
    type: 'PLUGIN',
    tagIds: [tagId('economy')],
    categoryIds: [categoryOf('PLUGIN').id],
    gameVersionIds: [versionId('1.2'), versionId('1.3')],
  });
  delta = await approved({ name: 'Delta Worlds', shortDescription: 'Islands', type: 'WORLD' });
  t.clock.advance(1000);
  teamApproved = await resourceFor(t.app, cast, 'TEAM', 'APPROVED', { name: 'Alpha Team Pack', type: 'MOD' });
  const matching = {
    type: 'MOD',
    shortDescription: 'Chairs 100% Charlie_',
    tagIds: [tagId('technology'), tagId('magic'), tagId('economy')],
    gameVersionIds: [versionId('1.0'), versionId('1.2')],
  };
  hidden = [];
  for (const status of ['PENDING', 'REJECTED', 'SUSPENDED'] as const) {
    t.clock.advance(1000);
    hidden.push(await resourceFor(t.app, cast, 'USER', status, { ...matching, name: `Alpha ${status}` }));
  }
  teamPending = await resourceFor(t.app, cast, 'TEAM', 'PENDING', { ...matching, name: 'Alpha Team Draft' });
  hidden.push(teamPending);
});
afterAll(async () => t.close());
afterEach(async () => expectResourceInvariants(t.app));

async function list(query = '', headers: Record<string, string> = {}): Promise<ResourceListBody> {
  const response = await t.app.inject({ method: 'GET', url: `/resources${query}`, headers });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as ResourceListBody;
}
const names = (body: ResourceListBody) => body.resources.map((r) => r.name);

describe('GET /resources', () => {
  it('lists APPROVED resources only, newest first, with the total from the counter', async () => {
    const body = await list();
    expect(names(body)).toEqual([teamApproved, delta, charlie, beta, alpha].map((r) => r.name));
    expect(body.total).toBe(5);
    expect(body.meta).toEqual({ total: 5, limit: 20, offset: 0, page: 1, totalExact: true });
    expect(body.resources[0]).not.toHaveProperty('description');
    expect(body.resources[0]).toMatchObject({ status: 'APPROVED', ownerType: 'TEAM' });
  });

  it('never shows a non-approved resource, whoever asks and whatever the filter', async () => {
    const ids = new Set(hidden.map((r) => r.id));
    for (const query of [
      '',
      '?search=alpha',
      '?type=MOD',
      '?tags=technology',
      '?tags=magic,economy',
      '?versions=1.0',
      '?sortBy=name',
      '?sortBy=updated',
      '?sortBy=likes',
      '?sortBy=downloads',
    ]) {
      for (const persona of ['owner', 'contributor', 'moderator', 'teamOwner', 'anonymous'] as const) {
        const body = await list(query, headersOf(cast, persona));
        expect(
          body.resources.filter((r) => ids.has(r.id)),
          `${query} as ${persona}`,
        ).toEqual([]);
        expect(body.resources.every((r) => r.status === 'APPROVED')).toBe(true);
      }
    }
  });

  it('filters by type, with the per-type total', async () => {
    const body = await list('?type=MOD');
    expect(names(body)).toEqual([teamApproved, beta, alpha].map((r) => r.name));
    expect(body.total).toBe(3);
    expect((await list('?type=DATA_PACK')).total).toBe(0);
  });

  // Full-text search in depth: test/search/resources-*.test.ts.
  it('searches words case-insensitively; punctuation is no word, so a search of it alone is no search', async () => {
    expect(names(await list('?search=ALPHA'))).toEqual([teamApproved.name, alpha.name]);
    expect(names(await list('?search=chairs'))).toEqual([alpha.name]);
    expect(names(await list(`?search=${encodeURIComponent('100%')}`))).toEqual([beta.name]);
    expect(names(await list(`?search=${encodeURIComponent('%')}`))).toEqual(names(await list()));
    expect(names(await list('?search=_'))).toEqual(names(await list()));
    // `_` separates words; words typed joined must also stand together ("Chairs and tables").
    expect(names(await list(`?search=${encodeURIComponent('chairs_and_tables')}`))).toEqual([alpha.name]);
    const searched = await list('?search=a');
    expect(searched.total).toBe(searched.resources.length);
  });

  it('filters by tags (slugs or IDs, any of them), categories and game version names', async () => {
    expect(names(await list('?tags=technology'))).toEqual([alpha.name]);
    expect(names(await list(`?tags=${tagId('technology')}`))).toEqual([alpha.name]);
    expect(names(await list('?tags=technology,economy'))).toEqual([charlie.name, alpha.name]);
    expect(names(await list('?tags=technology&tags=magic'))).toEqual([beta.name, alpha.name]);
    expect(names(await list(`?categories=${categoryOf('PLUGIN').slug}`))).toEqual([charlie.name]);
    expect(names(await list(`?categories=${categoryOf('MOD', 1).id}`))).toEqual([beta.name]);
    expect(names(await list('?versions=1.2'))).toEqual([charlie.name, beta.name]);
    expect(names(await list('?versions=1.3,1.0'))).toEqual([charlie.name, alpha.name]);
  });

  it('combines filters with AND, and counts what matched', async () => {
    const body = await list('?versions=1.2&type=MOD');
    expect(names(body)).toEqual([beta.name]);
    expect(body.total).toBe(1);
    expect(names(await list('?versions=1.2&tags=economy&search=money'))).toEqual([charlie.name]);
    expect(names(await list('?versions=1.2&tags=technology'))).toEqual([]);
  });

  it('matches nothing for catalog values that name nothing', async () => {
    for (const query of ['?tags=no-such-tag', '?categories=no-such-category', '?versions=99.9']) {
      const body = await list(query);
      expect(body).toMatchObject({ resources: [], total: 0 });
    }
  });

  it('sorts by name (case-insensitive), downloads, likes and last update', async () => {
    expect(names(await list('?sortBy=name'))).toEqual([
      'Alpha Furniture',
      'Alpha Team Pack',
      'beta Dungeons',
      'Charlie_Economy',
      'Delta Worlds',
    ]);
    expect(names(await list('?sortBy=date'))).toEqual(names(await list()));

    const { db } = t.app.context.database;
    // Downloads are counted by the versions module; here the counter is set directly.
    for (const [resource, downloads] of [
      [charlie, 50],
      [alpha, 30],
      [delta, 10],
    ] as const) {
      await db.updateTable('resources').set({ downloads }).where('id', '=', resource.id).execute();
    }
    // Changed behind the application's back: cached pages show it once they expire (5 s).
    t.clock.advance(5001);
    expect(names(await list('?sortBy=downloads')).slice(0, 3)).toEqual([
      charlie.name,
      alpha.name,
      delta.name,
    ]);

    for (const persona of ['stranger', 'contributor', 'maintainer'] as const) {
      await t.app.inject({
        method: 'POST',
        url: `/resources/${delta.id}/likes`,
        headers: cast[persona].headers,
      });
    }
    await t.app.inject({
      method: 'POST',
      url: `/resources/${beta.id}/likes`,
      headers: cast.stranger.headers,
    });
    const byLikes = await list('?sortBy=likes');
    expect(names(byLikes).slice(0, 2)).toEqual([delta.name, beta.name]);
    expect(byLikes.resources[0]!.likeCount).toBe(3);

    t.clock.advance(60_000);
    await t.app.inject({
      method: 'PATCH',
      url: `/resources/${alpha.id}`,
      headers: cast.owner.headers,
      payload: { shortDescription: 'Chairs and tables, now with sofas' },
    });
    expect(names(await list('?sortBy=updated'))[0]).toBe(alpha.name);
  });

  it('serves cached pages with a stable ETag (304 on If-None-Match) and shows writes at once', async () => {
    const first = await t.app.inject({ method: 'GET', url: '/resources?type=WORLD' });
    const etag = first.headers['etag'] as string;
    expect(etag).toMatch(/^W\//);
    const again = await t.app.inject({ method: 'GET', url: '/resources?type=WORLD' });
    expect(again.body).toBe(first.body);
    expect(again.headers['etag']).toBe(etag);
    const unchanged = await t.app.inject({
      method: 'GET',
      url: '/resources?type=WORLD',
      headers: { 'if-none-match': etag },
    });
    expect(unchanged.statusCode).toBe(304);
    // A favorite changes what the page shows: the next request renders it again.
    await t.app.inject({
      method: 'POST',
      url: `/resources/${delta.id}/favorites`,
      headers: cast.teamMember.headers,
    });
    const fresh = await list('?type=WORLD');
    expect(fresh.resources[0]).toMatchObject({ id: delta.id, favoriteCount: 1 });
    // So does a moderation.
    await moderate(t.app, cast.moderator, delta.id, 'SUSPEND');
    expect((await list('?type=WORLD')).resources).toEqual([]);
    await moderate(t.app, cast.moderator, delta.id, 'UNSUSPEND');
    expect(names(await list('?type=WORLD'))).toEqual([delta.name]);
  });

  it('pages with page and limit, echoing them in meta', async () => {
    const all = names(await list());
    const second = await list('?page=2&limit=2');
    expect(names(second)).toEqual(all.slice(2, 4));
    expect(second.meta).toEqual({ total: 5, limit: 2, offset: 2, page: 2, totalExact: true });
    expect((await list('?page=9&limit=2')).resources).toEqual([]);
    expect(names(await list('?limit=100'))).toEqual(all);
  });

  it.each(['?limit=101', '?limit=0', '?page=0', '?sortBy=random', '?type=SHADER', '?page=abc'])(
    'refuses %s with 400',
    async (query) => {
      expectError(await t.app.inject({ method: 'GET', url: `/resources${query}` }), 400, 'INVALID_REQUEST');
    },
  );

  it('accepts at most 50 values per list filter', async () => {
    const many = Array.from({ length: 51 }, (_, i) => `tag-${i}`).join(',');
    expectError(await t.app.inject({ method: 'GET', url: `/resources?tags=${many}` }), 400);
  });
});

describe('GET /resources/me', () => {
  it('lists the resources you own yourself in every status, not team ones', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/resources/me', headers: cast.owner.headers });
    expect(response.statusCode).toBe(200);
    const body = response.json() as ResourceListBody;
    const expected = [alpha, beta, charlie, delta, ...hidden.filter((r) => r.ownerType === 'USER')];
    expect(body.resources.map((r) => r.id).sort()).toEqual(expected.map((r) => r.id).sort());
    expect(body.total).toBe(expected.length);
    expect(new Set(body.resources.map((r) => r.status))).toEqual(
      new Set(['APPROVED', 'PENDING', 'REJECTED', 'SUSPENDED']),
    );
  });

  it('pages and needs credentials', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/resources/me?limit=2&page=2',
      headers: cast.owner.headers,
    });
    expect((response.json() as ResourceListBody).meta).toMatchObject({ limit: 2, offset: 2, page: 2 });
    expectError(await t.app.inject({ method: 'GET', url: '/resources/me' }), 401);
  });
});

describe("a user's resources", () => {
  const url = () => `/resources/user/${cast.owner.id}`;
  const approvedOfOwner = () => [alpha, beta, charlie, delta].map((r) => r.id).sort();
  const allOfOwner = () =>
    [...approvedOfOwner(), ...hidden.filter((r) => r.ownerType === 'USER').map((r) => r.id)].sort();

  const CASES: Array<[ResourcePersona, () => string[]]> = [
    ['anonymous', approvedOfOwner],
    ['stranger', approvedOfOwner],
    ['teamOwner', approvedOfOwner],
    ['owner', allOfOwner],
    ['contributor', allOfOwner],
    ['moderator', allOfOwner],
    ['admin', allOfOwner],
  ];
  it.each(CASES)('as %s', async (persona, expected) => {
    const response = await t.app.inject({ method: 'GET', url: url(), headers: headersOf(cast, persona) });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as ResourceListBody;
    expect(body.resources.map((r) => r.id).sort()).toEqual(expected());
    expect(body.total).toBe(expected().length);
  });

  it('answers 404 for an unknown user', async () => {
    expectError(
      await t.app.inject({ method: 'GET', url: '/resources/user/01900000-0000-7000-8000-000000000000' }),
      404,
    );
  });
});

describe("a team's resources", () => {
  const CASES: Array<[ResourcePersona, 'public' | 'all']> = [
    ['anonymous', 'public'],
    ['stranger', 'public'],
    ['owner', 'public'],
    ['teamOwner', 'all'],
    ['teamAdmin', 'all'],
    ['teamModerator', 'all'],
    ['teamMember', 'all'],
    ['contributor', 'all'],
    ['moderator', 'all'],
  ];
  it.each(CASES)('/resources/team/:teamId and /teams/:id/resources as %s', async (persona, sees) => {
    const expected = (sees === 'all' ? [teamApproved, teamPending] : [teamApproved]).map((r) => r.id).sort();
    for (const url of [`/resources/team/${cast.team.id}`, `/teams/${cast.team.id}/resources`]) {
      const response = await t.app.inject({ method: 'GET', url, headers: headersOf(cast, persona) });
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json() as ResourceListBody;
      expect(body.resources.map((r) => r.id).sort(), url).toEqual(expected);
    }
  });

  it('answers 404 for an unknown team', async () => {
    for (const url of [
      '/resources/team/01900000-0000-7000-8000-000000000000',
      '/teams/01900000-0000-7000-8000-000000000000/resources',
    ]) {
      expectError(await t.app.inject({ method: 'GET', url }), 404);
    }
  });
});
