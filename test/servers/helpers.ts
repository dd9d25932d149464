// Server fixtures built through the HTTP API, and the invariants every server test re-checks afterwards.
import { sql } from 'kysely';
import { expect } from 'vitest';
import type { App } from '../../src/app.js';
import type { TestUser } from '../helpers/factories.js';

export interface CatalogRef {
  id: string;
  name: string;
  slug: string;
}

export interface ServerBody {
  id: string;
  name: string;
  slug: string;
  shortDescription: string | null;
  description: string | null;
  ip: string;
  port: number;
  online: boolean;
  onlinePlayers: number;
  maxPlayers: number;
  rank: number | null;
  status: 'PENDING' | 'APPROVED' | 'REJECTED' | 'SUSPENDED';
  statusReason: string | null;
  logoUrl: string | null;
  bannerUrl: string | null;
  ownerType: 'USER' | 'TEAM';
  ownerId: string;
  owner: Record<string, unknown>;
  categories: CatalogRef[];
  tags: CatalogRef[];
  lastReportedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

let slugSequence = 0;
export function uniqueServerSlug(prefix = 'server'): string {
  slugSequence += 1;
  return `${prefix}-${process.pid}-${slugSequence}`;
}

export async function createServer(
  app: App,
  owner: TestUser,
  body: Record<string, unknown> = {},
): Promise<ServerBody> {
  const slug = (body['slug'] as string | undefined) ?? uniqueServerSlug();
  const response = await app.inject({
    method: 'POST',
    url: '/servers',
    headers: owner.headers,
    payload: { name: `Server ${slug}`, slug, ip: 'play.example.com', ...body },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as ServerBody;
}

export async function moderate(
  app: App,
  moderator: TestUser,
  serverId: string,
  action: 'approve' | 'reject' | 'suspend',
  payload: Record<string, unknown> = action === 'approve' ? {} : { reason: 'Because' },
): Promise<ServerBody> {
  const response = await app.inject({
    method: 'POST',
    url: `/servers/moderation/${serverId}/${action}`,
    headers: moderator.headers,
    payload,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as ServerBody;
}

/** A server created by `owner` and approved by `moderator`. */
export async function createApprovedServer(
  app: App,
  owner: TestUser,
  moderator: TestUser,
  body: Record<string, unknown> = {},
): Promise<ServerBody> {
  const server = await createServer(app, owner, body);
  return moderate(app, moderator, server.id, 'approve');
}

export async function reportStatus(
  app: App,
  user: TestUser,
  serverId: string,
  status: { online: boolean; onlinePlayers: number; maxPlayers: number },
) {
  const response = await app.inject({
    method: 'POST',
    url: `/servers/${serverId}/status`,
    headers: user.headers,
    payload: status,
  });
  expect(response.statusCode, response.body).toBe(200);
}

/** Silent servers go offline first, then the ranks are recomputed (the two jobs, in that order). */
export async function recomputeRanks(app: App): Promise<void> {
  expect(await app.context.scheduler.runNow('mark-silent-servers-offline')).toBe(true);
  expect(await app.context.scheduler.runNow('recompute-server-ranks')).toBe(true);
}

export async function getServer(app: App, slug: string, user?: TestUser): Promise<ServerBody> {
  const response = await app.inject({
    method: 'GET',
    url: `/servers/slug/${slug}`,
    ...(user ? { headers: user.headers } : {}),
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as ServerBody;
}

/** The seeded catalogs (0005_servers), read through the public API. */
export async function catalogs(app: App): Promise<{ tags: CatalogRef[]; categories: CatalogRef[] }> {
  const [tags, categories] = await Promise.all([
    app.inject({ method: 'GET', url: '/server-tags' }),
    app.inject({ method: 'GET', url: '/server-categories' }),
  ]);
  const refs = (rows: CatalogRef[]) => rows.map(({ id, name, slug }) => ({ id, name, slug }));
  return {
    tags: refs((tags.json() as { tags: CatalogRef[] }).tags),
    categories: refs((categories.json() as { categories: CatalogRef[] }).categories),
  };
}

/**
 * The stored counters agree with the rows they count: the APPROVED total, each tag's and category's usage (by
 * APPROVED servers), each team's server_count, the tag total; and no non-approved server carries a rank.
 */
export async function expectServerInvariants(app: App): Promise<void> {
  const { db } = app.context.database;
  const [servers, tagLinks, categoryLinks, tags, categories, teams, counters] = await Promise.all([
    db.selectFrom('servers').select(['id', 'status', 'rank', 'owner_type', 'owner_id']).execute(),
    db.selectFrom('server_tag_links').selectAll().execute(),
    db.selectFrom('server_category_links').selectAll().execute(),
    db.selectFrom('server_tags').select(['id', 'usage_count']).execute(),
    db.selectFrom('server_categories').select(['id', 'usage_count']).execute(),
    db.selectFrom('teams').select(['id', 'server_count']).execute(),
    db.selectFrom('counters').selectAll().execute(),
  ]);
  const approved = new Set(servers.filter((s) => s.status === 'APPROVED').map((s) => s.id));
  const counter = (name: string) => Number(counters.find((row) => row.name === name)?.value);
  expect(counter('approved_servers'), 'approved_servers counter').toBe(approved.size);
  expect(counter('server_tags'), 'server_tags counter').toBe(tags.length);
  for (const tag of tags) {
    const used = tagLinks.filter((link) => link.tag_id === tag.id && approved.has(link.server_id)).length;
    expect(tag.usage_count, `usage_count of tag ${tag.id}`).toBe(used);
  }
  for (const category of categories) {
    const used = categoryLinks.filter(
      (link) => link.category_id === category.id && approved.has(link.server_id),
    ).length;
    expect(category.usage_count, `usage_count of category ${category.id}`).toBe(used);
  }
  for (const team of teams) {
    const owned = servers.filter((s) => s.owner_type === 'TEAM' && s.owner_id === team.id).length;
    expect(team.server_count, `server_count of team ${team.id}`).toBe(owned);
  }
  for (const server of servers.filter((s) => s.status !== 'APPROVED')) {
    expect(server.rank, `rank of non-approved server ${server.id}`).toBeNull();
  }
  if (app.context.database.dialect === 'postgres') {
    expect(await serverVectorsOutOfStep(app), 'server_search_vectors out of step').toEqual([]);
  }
}

/**
 * PostgreSQL (migration 0045): the servers whose copied document is missing, left over, or not their
 * server_search row's document, as the triggers should keep them.
 */
export async function serverVectorsOutOfStep(app: App): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    select coalesce(s.server_id, v.server_id) as id
    from server_search s full join server_search_vectors v on v.server_id = s.server_id
    where s.server_id is null or v.server_id is null or v.document <> s.document
    order by 1`.execute(app.context.database.db);
  return rows.map((row) => row.id);
}

/** The ids GET /servers lists for a query string (up to 50), sorted; its total checked against them. */
export async function listedServerIds(app: App, query: string): Promise<string[]> {
  const response = await app.inject({ method: 'GET', url: `/servers?${query}&limit=50` });
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json() as { servers: Array<{ id: string }>; meta: { total: number } };
  expect(body.meta.total, query).toBe(body.servers.length);
  return body.servers.map((server) => server.id).sort();
}
