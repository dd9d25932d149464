// Resources themselves: create, read, edit, delete, icon and banner; counters and team resource counts.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import { expectError, multipart } from '../helpers/http.js';
import { notAnImage, pngImage, webpImage } from '../fixtures/images.js';
import { getTeam } from '../teams/helpers.js';
import {
  createResource,
  createResourceCast,
  expectResourceInvariants,
  keyOf,
  moderate,
  readCatalogs,
  resourceFor,
  resourceSlug,
} from './helpers.js';
import type { Catalogs, ResourceBody, ResourceCast } from './helpers.js';

let t: TestApp;
let cast: ResourceCast;
let catalogs: Catalogs;

beforeAll(async () => {
  t = await buildTestApp();
  cast = await createResourceCast(t.app);
  catalogs = await readCatalogs(t.app);
});
afterAll(async () => t.close());
afterEach(async () => expectResourceInvariants(t.app));

const categoriesOf = (type: string) => catalogs.categories.filter((c) => c.resourceType === type);
const tagBySlug = (slug: string) => catalogs.tags.find((tag) => tag.slug === slug)!;
const versionByName = (name: string) => catalogs.gameVersions.find((v) => v.name === name)!;

async function getResource(id: string, headers: Record<string, string> = cast.moderator.headers) {
  const response = await t.app.inject({ method: 'GET', url: `/resources/${id}`, headers });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as ResourceBody;
}

async function tagUsage(id: string): Promise<number> {
  return (
    (await t.app.inject({ method: 'GET', url: `/resource-tags/${id}` })).json() as { usageCount: number }
  ).usageCount;
}

describe('POST /resources', () => {
  it('creates a PENDING resource owned by the caller, with its catalogs in their display order', async () => {
    const [first, second] = categoriesOf('MOD');
    const slug = resourceSlug('create');
    const response = await t.app.inject({
      method: 'POST',
      url: '/resources',
      headers: cast.owner.headers,
      payload: {
        name: '  Better Backpacks  ',
        slug,
        shortDescription: 'Bigger backpacks',
        description: '# Backpacks\nMore room.',
        type: 'MOD',
        categoryIds: [second!.id, first!.id, second!.id],
        tagIds: [tagBySlug('technology').id, tagBySlug('adventure').id],
        gameVersionIds: [versionByName('1.0').id, versionByName('1.2').id],
      },
    });
    expect(response.statusCode, response.body).toBe(201);
    const resource = response.json() as ResourceBody;
    expect(resource).toMatchObject({
      name: 'Better Backpacks',
      slug,
      shortDescription: 'Bigger backpacks',
      description: '# Backpacks\nMore room.',
      type: 'MOD',
      status: 'PENDING',
      iconUrl: null,
      bannerUrl: null,
      ownerType: 'USER',
      ownerId: cast.owner.id,
      downloads: 0,
      likeCount: 0,
      favoriteCount: 0,
    });
    expect(resource.owner).toEqual({
      type: 'USER',
      id: cast.owner.id,
      username: cast.owner.username,
      displayName: null,
      image: expect.stringContaining('http://api.test/cdn/') as string,
    });
    expect(resource.categories).toEqual(
      [first, second].map((c) => ({ id: c!.id, name: c!.name, slug: c!.slug })),
    );
    expect(resource.tags.map((tag) => tag.slug)).toEqual(['adventure', 'technology']);
    expect(resource.gameVersions.map((v) => v.name)).toEqual(['1.2', '1.0']);
    expect(resource.createdAt).toBe(t.clock.now().toISOString());
    expect(resource.updatedAt).toBe(resource.createdAt);
    expect(await tagUsage(tagBySlug('technology').id)).toBeGreaterThanOrEqual(1);
  });

  it('never reads status, counters or unknown fields from the body', async () => {
    const resource = await createResource(t.app, cast.owner, {
      status: 'APPROVED',
      downloads: 999,
      likeCount: 5,
      iconUrl: 'https://evil.example/x.png',
    });
    expect(resource).toMatchObject({ status: 'PENDING', downloads: 0, likeCount: 0, iconUrl: null });
  });

  it('defaults the description to empty', async () => {
    expect((await createResource(t.app, cast.owner)).description).toBe('');
  });

  it('refuses a taken slug with 409 SLUG_TAKEN', async () => {
    const existing = await createResource(t.app, cast.owner);
    const response = await t.app.inject({
      method: 'POST',
      url: '/resources',
      headers: cast.stranger.headers,
      payload: { name: 'Copy', slug: existing.slug, shortDescription: 'x', type: 'MOD' },
    });
    expectError(response, 409, 'SLUG_TAKEN');
  });

  it.each([
    ['a missing name', { name: undefined }],
    ['an empty name', { name: '' }],
    ['a name over 100 characters', { name: 'x'.repeat(101) }],
    ['an invalid slug', { slug: 'Not A Slug' }],
    ['a too short slug', { slug: 'ab' }],
    ['a missing short description', { shortDescription: undefined }],
    ['a short description over 250 characters', { shortDescription: 'x'.repeat(251) }],
    ['a description over 50,000 characters', { description: 'x'.repeat(50_001) }],
    ['an unknown type', { type: 'SHADER' }],
    ['an unknown owner type', { ownerType: 'SERVER' }],
    ['more than 20 tags', { tagIds: Array.from({ length: 21 }, (_, i) => `tag-${i}`) }],
  ])('refuses %s with 400', async (_what, change) => {
    const payload: Record<string, unknown> = {
      name: 'Valid',
      slug: resourceSlug('invalid'),
      shortDescription: 'Valid',
      type: 'MOD',
      ...change,
    };
    for (const key of Object.keys(payload)) if (payload[key] === undefined) delete payload[key];
    const response = await t.app.inject({
      method: 'POST',
      url: '/resources',
      headers: cast.owner.headers,
      payload,
    });
    expectError(response, 400, 'INVALID_REQUEST');
  });

  it('refuses unknown catalog IDs and categories of another type with 400, naming the field', async () => {
    const unknown = '01900000-0000-7000-8000-000000000000';
    for (const [field, value] of [
      ['categoryIds', [unknown]],
      ['tagIds', [unknown]],
      ['gameVersionIds', [unknown]],
      ['categoryIds', [categoriesOf('PLUGIN')[0]!.id]],
    ] as const) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/resources',
        headers: cast.owner.headers,
        payload: { name: 'X', slug: resourceSlug('cat'), shortDescription: 'x', type: 'MOD', [field]: value },
      });
      const body = expectError(response, 400, 'INVALID_REQUEST');
      expect(body.details).toMatchObject({ fields: { [`body.${field}`]: expect.any(String) as string } });
    }
  });

  it('needs a signed-in caller', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/resources',
      payload: { name: 'X', slug: resourceSlug(), shortDescription: 'x', type: 'MOD' },
    });
    expectError(response, 401, 'UNAUTHORIZED');
  });

  it('creates for yourself only: another user as owner is 403', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/resources',
      headers: cast.stranger.headers,
      payload: {
        name: 'X',
        slug: resourceSlug(),
        shortDescription: 'x',
        type: 'MOD',
        ownerId: cast.owner.id,
      },
    });
    expectError(response, 403, 'FORBIDDEN');
    // Naming yourself explicitly is fine.
    await createResource(t.app, cast.stranger, { ownerType: 'USER', ownerId: cast.stranger.id });
  });

  describe('for a team', () => {
    const teamPayload = () => ({
      name: 'Team thing',
      slug: resourceSlug('team'),
      shortDescription: 'x',
      type: 'PLUGIN',
      ownerType: 'TEAM',
      ownerId: cast.team.id,
    });

    it.each(['teamOwner', 'teamAdmin'] as const)(
      'the %s creates it and the team resource count moves',
      async (persona) => {
        const before = (await getTeam(t.app, cast.team.slug)).resourceCount;
        const response = await t.app.inject({
          method: 'POST',
          url: '/resources',
          headers: cast[persona].headers,
          payload: teamPayload(),
        });
        expect(response.statusCode, response.body).toBe(201);
        expect(response.json()).toMatchObject({
          ownerType: 'TEAM',
          ownerId: cast.team.id,
          owner: {
            type: 'TEAM',
            id: cast.team.id,
            name: cast.team.name,
            slug: cast.team.slug,
            logoUrl: null,
          },
        });
        expect((await getTeam(t.app, cast.team.slug)).resourceCount).toBe(before + 1);
      },
    );

    it.each(['teamModerator', 'teamMember', 'stranger'] as const)('the %s gets 403', async (persona) => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/resources',
        headers: cast[persona].headers,
        payload: teamPayload(),
      });
      expectError(response, 403, 'FORBIDDEN');
    });

    it('an unknown team is 404; TEAM without ownerId is 400', async () => {
      expectError(
        await t.app.inject({
          method: 'POST',
          url: '/resources',
          headers: cast.teamOwner.headers,
          payload: { ...teamPayload(), ownerId: '01900000-0000-7000-8000-000000000000' },
        }),
        404,
        'NOT_FOUND',
      );
      const { ownerId: _ownerId, ...withoutOwner } = teamPayload();
      expectError(
        await t.app.inject({
          method: 'POST',
          url: '/resources',
          headers: cast.teamOwner.headers,
          payload: withoutOwner,
        }),
        400,
        'INVALID_REQUEST',
      );
    });

    it('keeps the team from being deleted while it owns a resource', async () => {
      const owner = await createUser(t.app);
      const teamResponse = await t.app.inject({
        method: 'POST',
        url: '/teams',
        headers: owner.headers,
        payload: { name: 'Short-lived', slug: resourceSlug('short-team') },
      });
      const team = teamResponse.json() as { id: string };
      const resource = await createResource(t.app, owner, { ownerType: 'TEAM', ownerId: team.id });
      expectError(
        await t.app.inject({ method: 'DELETE', url: `/teams/${team.id}`, headers: owner.headers }),
        409,
        'TEAM_NOT_EMPTY',
      );
      const removed = await t.app.inject({
        method: 'DELETE',
        url: `/resources/${resource.id}`,
        headers: owner.headers,
      });
      expect(removed.statusCode, removed.body).toBe(204);
      const deleted = await t.app.inject({
        method: 'DELETE',
        url: `/teams/${team.id}`,
        headers: owner.headers,
      });
      expect(deleted.statusCode, deleted.body).toBe(204);
    });
  });
});

describe('GET /resources/:id and /resources/slug/:slug', () => {
  it('shows an APPROVED resource to everyone, the same by id and by slug', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const [byId, bySlug] = await Promise.all([
      t.app.inject({ method: 'GET', url: `/resources/${resource.id}` }),
      t.app.inject({ method: 'GET', url: `/resources/slug/${resource.slug}` }),
    ]);
    expect(byId.statusCode).toBe(200);
    expect(bySlug.json()).toEqual(byId.json());
    expect(byId.json()).toMatchObject({ id: resource.id, status: 'APPROVED' });
  });

  it.each(['PENDING', 'REJECTED', 'SUSPENDED'] as const)(
    'hides a %s resource from the public and from strangers (404), not from its side',
    async (status) => {
      const resource = await resourceFor(t.app, cast, 'TEAM', status);
      for (const url of [`/resources/${resource.id}`, `/resources/slug/${resource.slug}`]) {
        expectError(await t.app.inject({ method: 'GET', url }), 404, 'NOT_FOUND');
        expectError(await t.app.inject({ method: 'GET', url, headers: cast.stranger.headers }), 404);
        for (const persona of ['teamMember', 'contributor', 'moderator'] as const) {
          const response = await t.app.inject({ method: 'GET', url, headers: cast[persona].headers });
          expect(response.statusCode, `${persona} ${url}`).toBe(200);
          expect(response.json()).toMatchObject({ status });
        }
      }
    },
  );

  it('answers 404 for an unknown id or slug', async () => {
    expectError(
      await t.app.inject({ method: 'GET', url: '/resources/01900000-0000-7000-8000-000000000000' }),
      404,
    );
    expectError(await t.app.inject({ method: 'GET', url: '/resources/slug/no-such-resource' }), 404);
  });
});

describe('PATCH /resources/:id', () => {
  it('edits the details; slug, type, owner and status in the body are ignored', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    t.clock.advance(60_000);
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/resources/${resource.id}`,
      headers: cast.contributor.headers,
      payload: {
        name: 'Renamed',
        shortDescription: 'New summary',
        description: 'New text',
        slug: 'changed-slug',
        type: 'WORLD',
        ownerId: cast.stranger.id,
        status: 'PENDING',
      },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      id: resource.id,
      name: 'Renamed',
      shortDescription: 'New summary',
      description: 'New text',
      slug: resource.slug,
      type: 'MOD',
      ownerId: cast.owner.id,
      status: 'APPROVED',
      updatedAt: t.clock.now().toISOString(),
      createdAt: resource.createdAt,
    });
  });

  it('replaces only the catalog lists it names, moving usage counts', async () => {
    const technology = tagBySlug('technology');
    const magic = tagBySlug('magic');
    const resource = await createResource(t.app, cast.owner, {
      tagIds: [technology.id],
      gameVersionIds: [versionByName('1.1').id],
      categoryIds: [categoriesOf('MOD')[0]!.id],
    });
    const [technologyBefore, magicBefore] = [await tagUsage(technology.id), await tagUsage(magic.id)];
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/resources/${resource.id}`,
      headers: cast.owner.headers,
      payload: { tagIds: [magic.id] },
    });
    expect(response.statusCode, response.body).toBe(200);
    const updated = response.json() as ResourceBody;
    expect(updated.tags.map((tag) => tag.slug)).toEqual(['magic']);
    expect(updated.gameVersions.map((v) => v.name)).toEqual(['1.1']);
    expect(updated.categories).toHaveLength(1);
    expect(await tagUsage(technology.id)).toBe(technologyBefore - 1);
    expect(await tagUsage(magic.id)).toBe(magicBefore + 1);

    const cleared = await t.app.inject({
      method: 'PATCH',
      url: `/resources/${resource.id}`,
      headers: cast.owner.headers,
      payload: { tagIds: [], categoryIds: [], gameVersionIds: [] },
    });
    expect(cleared.json()).toMatchObject({ tags: [], categories: [], gameVersions: [] });
  });

  it('puts a REJECTED resource back to PENDING, whoever on its side edits it', async () => {
    for (const editor of ['owner', 'contributor', 'maintainer'] as const) {
      const resource = await resourceFor(t.app, cast, 'USER', 'REJECTED');
      const response = await t.app.inject({
        method: 'PATCH',
        url: `/resources/${resource.id}`,
        headers: cast[editor].headers,
        payload: { description: 'Fixed what the moderator asked for' },
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ status: 'PENDING' });
    }
  });

  it.each(['APPROVED', 'PENDING', 'SUSPENDED'] as const)(
    'keeps a %s resource in its status',
    async (status) => {
      const resource = await resourceFor(t.app, cast, 'TEAM', status);
      const response = await t.app.inject({
        method: 'PATCH',
        url: `/resources/${resource.id}`,
        headers: cast.teamMember.headers,
        payload: { name: 'Still the same status' },
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ status });
    },
  );

  it('validates like creation: 400 for bad fields, unknown catalog IDs or a foreign category', async () => {
    const resource = await createResource(t.app, cast.owner);
    for (const payload of [
      { name: '' },
      { shortDescription: 'x'.repeat(251) },
      { tagIds: ['01900000-0000-7000-8000-000000000000'] },
      { categoryIds: [categoriesOf('WORLD')[0]!.id] },
    ]) {
      expectError(
        await t.app.inject({
          method: 'PATCH',
          url: `/resources/${resource.id}`,
          headers: cast.owner.headers,
          payload,
        }),
        400,
      );
    }
    expect((await getResource(resource.id, cast.owner.headers)).name).toBe(resource.name);
  });
});

describe('DELETE /resources/:id', () => {
  it('removes the resource with its links, contributors, likes, favorites, history and images', async () => {
    const technology = tagBySlug('technology');
    const resource = await resourceFor(t.app, cast, 'TEAM', 'APPROVED', { tagIds: [technology.id] });
    const png = await pngImage(64, 64);
    const icon = await multipart('icon', { data: png, name: 'icon.png' });
    const withIcon = await t.app.inject({
      method: 'POST',
      url: `/resources/${resource.id}/icon`,
      headers: { ...cast.teamOwner.headers, ...icon.headers },
      payload: icon.payload,
    });
    const iconKey = keyOf((withIcon.json() as ResourceBody).iconUrl!);
    const descriptionImage = await multipart('file', { data: await webpImage(20, 20), name: 'shot.webp' });
    const uploaded = await t.app.inject({
      method: 'POST',
      url: `/resources/description-images/${resource.id}/upload`,
      headers: { ...cast.contributor.headers, ...descriptionImage.headers },
      payload: descriptionImage.payload,
    });
    expect(uploaded.statusCode, uploaded.body).toBe(201);
    const imageKey = keyOf((uploaded.json() as { url: string }).url);
    await t.app.inject({
      method: 'POST',
      url: `/resources/${resource.id}/likes`,
      headers: cast.stranger.headers,
    });
    await t.app.inject({
      method: 'POST',
      url: `/resources/${resource.id}/favorites`,
      headers: cast.stranger.headers,
    });
    await t.app.inject({
      method: 'POST',
      url: `/resources/${resource.id}/external-links`,
      headers: cast.teamOwner.headers,
      payload: { title: 'Site', url: 'https://site.example', type: 'WEBSITE' },
    });
    const usageBefore = await tagUsage(technology.id);
    const countBefore = (await getTeam(t.app, cast.team.slug)).resourceCount;
    const storage = t.app.context.storage;
    expect(await storage.head(iconKey)).toBeDefined();
    expect(await storage.head(imageKey)).toBeDefined();

    const response = await t.app.inject({
      method: 'DELETE',
      url: `/resources/${resource.id}`,
      headers: cast.teamAdmin.headers,
    });
    expect(response.statusCode, response.body).toBe(204);
    expect(response.body).toBe('');

    expectError(
      await t.app.inject({
        method: 'GET',
        url: `/resources/${resource.id}`,
        headers: cast.moderator.headers,
      }),
      404,
    );
    expect(await tagUsage(technology.id)).toBe(usageBefore - 1);
    expect((await getTeam(t.app, cast.team.slug)).resourceCount).toBe(countBefore - 1);
    expect(await storage.head(iconKey)).toBeUndefined();
    expect(await storage.head(imageKey)).toBeUndefined();
    const { db } = t.app.context.database;
    for (const table of [
      'resource_tag_links',
      'resource_contributors',
      'resource_likes',
      'resource_favorites',
      'resource_external_links',
      'resource_moderation_events',
    ] as const) {
      const rows = await db
        .selectFrom(table)
        .select('resource_id')
        .where('resource_id', '=', resource.id)
        .execute();
      expect(rows, table).toEqual([]);
    }
    const images = await db
      .selectFrom('description_images')
      .select('id')
      .where('owner_id', '=', resource.id)
      .execute();
    expect(images).toEqual([]);
    const favorites = await t.app.inject({
      method: 'GET',
      url: '/user/favorites',
      headers: cast.stranger.headers,
    });
    expect(
      (favorites.json() as { favorites: Array<{ resourceId: string }> }).favorites.map((f) => f.resourceId),
    ).not.toContain(resource.id);
  });

  it('deletes a resource in any status', async () => {
    for (const status of ['PENDING', 'REJECTED', 'SUSPENDED'] as const) {
      const resource = await resourceFor(t.app, cast, 'USER', status);
      const response = await t.app.inject({
        method: 'DELETE',
        url: `/resources/${resource.id}`,
        headers: cast.owner.headers,
      });
      expect(response.statusCode, response.body).toBe(204);
    }
  });

  it('answers 404 for an unknown resource, 401 without credentials', async () => {
    const url = '/resources/01900000-0000-7000-8000-000000000000';
    expectError(await t.app.inject({ method: 'DELETE', url, headers: cast.owner.headers }), 404);
    expectError(await t.app.inject({ method: 'DELETE', url }), 401);
  });
});

describe('icon and banner', () => {
  it.each([
    ['icon', 512],
    ['banner', 1920],
  ] as const)('uploads, replaces and removes the %s; the replaced object is deleted', async (kind, box) => {
    const resource = await createResource(t.app, cast.owner);
    const storage = t.app.context.storage;
    const first = await multipart(kind, { data: await pngImage(box + 100, 50), name: `${kind}.png` });
    const uploaded = await t.app.inject({
      method: 'POST',
      url: `/resources/${resource.id}/${kind}`,
      headers: { ...cast.contributor.headers, ...first.headers },
      payload: first.payload,
    });
    // The contributor is not on this resource yet: it is hidden from them.
    expectError(uploaded, 404);

    const byOwner = await t.app.inject({
      method: 'POST',
      url: `/resources/${resource.id}/${kind}`,
      headers: { ...cast.owner.headers, ...first.headers },
      payload: first.payload,
    });
    expect(byOwner.statusCode, byOwner.body).toBe(200);
    const firstUrl = (byOwner.json() as ResourceBody)[kind === 'icon' ? 'iconUrl' : 'bannerUrl']!;
    expect(firstUrl).toMatch(
      new RegExp(`^http://api\\.test/cdn/images/resource-${kind}s/${resource.id}/[0-9a-f]{32}\\.png$`),
    );
    const stored = await storage.get(keyOf(firstUrl));
    expect(stored?.contentType).toBe('image/png');

    const second = await multipart(kind, { data: await webpImage(40, 40), name: `${kind}.webp` });
    const replaced = await t.app.inject({
      method: 'POST',
      url: `/resources/${resource.id}/${kind}`,
      headers: { ...cast.owner.headers, ...second.headers },
      payload: second.payload,
    });
    const secondUrl = (replaced.json() as ResourceBody)[kind === 'icon' ? 'iconUrl' : 'bannerUrl']!;
    expect(secondUrl).toMatch(/\.webp$/);
    expect(await storage.head(keyOf(firstUrl))).toBeUndefined();

    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/resources/${resource.id}/${kind}`,
      headers: cast.owner.headers,
    });
    expect(removed.statusCode).toBe(200);
    expect((removed.json() as ResourceBody)[kind === 'icon' ? 'iconUrl' : 'bannerUrl']).toBeNull();
    expect(await storage.head(keyOf(secondUrl))).toBeUndefined();
  });

  it('refuses a non-image with 415 and a missing file with 400', async () => {
    const resource = await createResource(t.app, cast.owner);
    const wrong = await multipart('icon', { data: notAnImage(), name: 'icon.png' });
    expectError(
      await t.app.inject({
        method: 'POST',
        url: `/resources/${resource.id}/icon`,
        headers: { ...cast.owner.headers, ...wrong.headers },
        payload: wrong.payload,
      }),
      415,
    );
    const empty = await multipart('icon', undefined, { note: 'no file' });
    expectError(
      await t.app.inject({
        method: 'POST',
        url: `/resources/${resource.id}/icon`,
        headers: { ...cast.owner.headers, ...empty.headers },
        payload: empty.payload,
      }),
      400,
    );
  });
});

describe('moderation keeps the public view in step', () => {
  it('a suspended resource disappears from the public and comes back when unsuspended', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    await moderate(t.app, cast.moderator, resource.id, 'SUSPEND', 'Malware report');
    expectError(await t.app.inject({ method: 'GET', url: `/resources/slug/${resource.slug}` }), 404);
    await moderate(t.app, cast.admin, resource.id, 'UNSUSPEND');
    expect((await t.app.inject({ method: 'GET', url: `/resources/slug/${resource.slug}` })).statusCode).toBe(
      200,
    );
  });
});
