// Resource fixtures: resources created through the HTTP API, the cast of personas around them, and the counter
// invariants every resource test re-checks.
import { expect } from 'vitest';
import type { App } from '../../src/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { addMember, createTeam } from '../teams/helpers.js';
import type { TeamBody } from '../teams/helpers.js';

export interface ResourceBody {
  id: string;
  name: string;
  slug: string;
  shortDescription: string;
  description: string;
  type: string;
  status: 'PENDING' | 'APPROVED' | 'REJECTED' | 'SUSPENDED';
  iconUrl: string | null;
  bannerUrl: string | null;
  ownerType: 'USER' | 'TEAM';
  ownerId: string;
  owner: Record<string, unknown>;
  categories: Array<{ id: string; name: string; slug: string }>;
  tags: Array<{ id: string; name: string; slug: string }>;
  gameVersions: Array<{ id: string; name: string }>;
  downloads: number;
  likeCount: number;
  favoriteCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface ResourceListBody {
  resources: ResourceBody[];
  total: number;
  meta: { total: number; limit: number; offset: number; page: number };
}

let slugSequence = 0;
export function resourceSlug(prefix = 'res'): string {
  slugSequence += 1;
  return `${prefix}-${process.pid}-${slugSequence}`;
}

export async function createResource(
  app: App,
  user: TestUser,
  body: Record<string, unknown> = {},
): Promise<ResourceBody> {
  const slug = (body['slug'] as string | undefined) ?? resourceSlug();
  const response = await app.inject({
    method: 'POST',
    url: '/resources',
    headers: user.headers,
    payload: { name: `Resource ${slug}`, slug, shortDescription: 'A fine resource', type: 'MOD', ...body },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as ResourceBody;
}

export async function moderate(
  app: App,
  moderator: TestUser,
  id: string,
  action: 'APPROVE' | 'REJECT' | 'SUSPEND' | 'UNSUSPEND',
  reason?: string,
): Promise<ResourceBody> {
  const response = await app.inject({
    method: 'PATCH',
    url: `/resources/moderation/${id}/moderate`,
    headers: moderator.headers,
    payload: { action, ...(reason !== undefined ? { reason } : {}) },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as ResourceBody;
}

export async function addContributor(
  app: App,
  owner: TestUser,
  resourceId: string,
  user: TestUser,
  role: 'CONTRIBUTOR' | 'MAINTAINER',
): Promise<void> {
  const response = await app.inject({
    method: 'POST',
    url: `/resources/${resourceId}/contributors`,
    headers: owner.headers,
    payload: { userId: user.id, role },
  });
  expect(response.statusCode, response.body).toBe(201);
}

export type ResourcePersona =
  | 'owner'
  | 'teamOwner'
  | 'teamAdmin'
  | 'teamModerator'
  | 'teamMember'
  | 'contributor'
  | 'maintainer'
  | 'stranger'
  | 'moderator'
  | 'admin'
  | 'anonymous';

export const RESOURCE_PERSONAS: readonly ResourcePersona[] = [
  'owner',
  'teamOwner',
  'teamAdmin',
  'teamModerator',
  'teamMember',
  'contributor',
  'maintainer',
  'stranger',
  'moderator',
  'admin',
  'anonymous',
];

/** Everyone who plays a part around a resource; `owner` owns user resources, the team* users staff `team`. */
export interface ResourceCast {
  owner: TestUser;
  teamOwner: TestUser;
  teamAdmin: TestUser;
  teamModerator: TestUser;
  teamMember: TestUser;
  contributor: TestUser;
  maintainer: TestUser;
  stranger: TestUser;
  moderator: TestUser;
  admin: TestUser;
  team: TeamBody;
}

export async function createResourceCast(app: App): Promise<ResourceCast> {
  const [owner, teamOwner, teamAdmin, teamModerator, teamMember, contributor, maintainer, stranger] =
    await Promise.all(Array.from({ length: 8 }, () => createUser(app)));
  const [moderator, admin] = await Promise.all([
    createUser(app, { role: 'MODERATOR' }),
    createUser(app, { role: 'ADMIN' }),
  ]);
  const team = await createTeam(app, teamOwner!);
  await addMember(app, team.id, teamOwner!, teamAdmin!, 'ADMIN');
  await addMember(app, team.id, teamOwner!, teamModerator!, 'MODERATOR');
  await addMember(app, team.id, teamOwner!, teamMember!, 'MEMBER');
  return {
    owner: owner!,
    teamOwner: teamOwner!,
    teamAdmin: teamAdmin!,
    teamModerator: teamModerator!,
    teamMember: teamMember!,
    contributor: contributor!,
    maintainer: maintainer!,
    stranger: stranger!,
    moderator,
    admin,
    team,
  };
}

export function headersOf(cast: ResourceCast, persona: ResourcePersona): Record<string, string> {
  return persona === 'anonymous' ? {} : cast[persona].headers;
}

/**
 * A resource with the cast around it: owned by `owner` (kind USER) or by the cast's team (kind TEAM, created by
 * the team owner), with `contributor` and `maintainer` added, in the given status.
 */
export async function resourceFor(
  app: App,
  cast: ResourceCast,
  kind: 'USER' | 'TEAM',
  status: ResourceBody['status'] = 'PENDING',
  body: Record<string, unknown> = {},
): Promise<ResourceBody> {
  const creator = kind === 'USER' ? cast.owner : cast.teamOwner;
  const resource = await createResource(app, creator, {
    ...(kind === 'TEAM' ? { ownerType: 'TEAM', ownerId: cast.team.id } : {}),
    ...body,
  });
  await addContributor(app, creator, resource.id, cast.contributor, 'CONTRIBUTOR');
  await addContributor(app, creator, resource.id, cast.maintainer, 'MAINTAINER');
  if (status === 'APPROVED') return moderate(app, cast.moderator, resource.id, 'APPROVE');
  if (status === 'REJECTED') return moderate(app, cast.moderator, resource.id, 'REJECT');
  if (status === 'SUSPENDED') return moderate(app, cast.moderator, resource.id, 'SUSPEND');
  return resource;
}

/**
 * The maintained counters equal what they count: per-status and per-type totals, usage counts, like and
 * favorite counts, and every team's resource_count.
 */
export async function expectResourceInvariants(app: App): Promise<void> {
  const { db } = app.context.database;
  const [resources, counters, teams, categories, tags, typeUsage, catLinks, tagLinks, likes, favorites] =
    await Promise.all([
      db
        .selectFrom('resources')
        .select([
          'id',
          'status',
          'type',
          'owner_type',
          'owner_id',
          'like_count',
          'favorite_count',
          'created_at',
          'updated_at',
          'downloads',
          'name_key',
        ])
        .execute(),
      db.selectFrom('counters').selectAll().execute(),
      db.selectFrom('teams').select(['id', 'resource_count']).execute(),
      db.selectFrom('resource_categories').select(['id', 'usage_count']).execute(),
      db.selectFrom('resource_tags').select(['id', 'usage_count']).execute(),
      db.selectFrom('resource_tag_type_usage').selectAll().execute(),
      db.selectFrom('resource_category_links').selectAll().execute(),
      db.selectFrom('resource_tag_links').selectAll().execute(),
      db.selectFrom('resource_likes').select(['resource_id']).execute(),
      db.selectFrom('resource_favorites').select(['resource_id']).execute(),
    ]);
  const counter = (name: string) => Number(counters.find((row) => row.name === name)?.value ?? NaN);
  for (const status of ['PENDING', 'APPROVED', 'REJECTED', 'SUSPENDED']) {
    expect(counter(`resources.status.${status}`), status).toBe(
      resources.filter((r) => r.status === status).length,
    );
  }
  for (const type of [
    'MOD',
    'PLUGIN',
    'ASSET_PACK',
    'DATA_PACK',
    'WORLD',
    'PREFAB',
    'MODPACK',
    'PREMADE_SERVER',
  ]) {
    expect(counter(`resources.approved.${type}`), type).toBe(
      resources.filter((r) => r.status === 'APPROVED' && r.type === type).length,
    );
  }
  expect(counter('resource_tags')).toBe(tags.length);
  for (const team of teams) {
    expect(team.resource_count, `resource_count of team ${team.id}`).toBe(
      resources.filter((r) => r.owner_type === 'TEAM' && r.owner_id === team.id).length,
    );
  }
  for (const category of categories) {
    expect(category.usage_count).toBe(catLinks.filter((l) => l.category_id === category.id).length);
  }
  const typeOf = new Map(resources.map((r) => [r.id, r.type]));
  for (const tag of tags) {
    const links = tagLinks.filter((l) => l.tag_id === tag.id);
    expect(tag.usage_count).toBe(links.length);
    for (const row of typeUsage.filter((u) => u.tag_id === tag.id)) {
      expect(row.usage_count).toBe(
        links.filter((l) => typeOf.get(l.resource_id) === row.resource_type).length,
      );
    }
  }
  // Every tag link carries its resource's status and sort keys (migration 0046).
  const byId = new Map(resources.map((r) => [r.id, r]));
  for (const link of tagLinks) {
    const resource = byId.get(link.resource_id)!;
    expect(
      [
        link.resource_status,
        link.resource_created_at,
        link.resource_updated_at,
        link.resource_downloads,
        link.resource_like_count,
        link.resource_name_key,
      ],
      `sort keys of the link of ${link.resource_id} to ${link.tag_id}`,
    ).toEqual([
      resource.status,
      resource.created_at,
      resource.updated_at,
      resource.downloads,
      resource.like_count,
      resource.name_key,
    ]);
  }
  for (const resource of resources) {
    expect(resource.like_count).toBe(likes.filter((l) => l.resource_id === resource.id).length);
    expect(resource.favorite_count).toBe(favorites.filter((f) => f.resource_id === resource.id).length);
  }
}

export interface Catalogs {
  categories: Array<{
    id: string;
    name: string;
    slug: string;
    resourceType: string;
    order: number;
    usageCount: number;
  }>;
  tags: Array<{ id: string; name: string; slug: string; usageCount: number }>;
  gameVersions: Array<{ id: string; name: string; releaseOrder: number }>;
}

/** The catalogs as the API lists them (seeded by the migration, plus whatever tests added). */
export async function readCatalogs(app: App): Promise<Catalogs> {
  const [categories, tags, versions] = await Promise.all([
    app.inject({ method: 'GET', url: '/resources/categories' }),
    app.inject({ method: 'GET', url: '/resource-tags?limit=100' }),
    app.inject({ method: 'GET', url: '/game-versions' }),
  ]);
  return {
    categories: (categories.json() as { categories: Catalogs['categories'] }).categories,
    tags: (tags.json() as { tags: Catalogs['tags'] }).tags,
    gameVersions: (versions.json() as { gameVersions: Catalogs['gameVersions'] }).gameVersions,
  };
}

/** The storage key behind a public image URL. */
export const keyOf = (url: string) => url.slice(url.indexOf('/images/') + 1);
