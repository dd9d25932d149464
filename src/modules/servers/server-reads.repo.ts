// Server reads that the API shows: each server with its owner (joined), tags and categories (aggregated as JSON)
// in one query, whatever the number of servers. The read by slug is prepared once; the directory's filtered and
// searched pages are in server-directory.repo.ts.
import type { Kysely, Transaction } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import { jsonArrayFrom } from '../../core/db/dialect.js';
import { prepared } from '../../core/db/prepared.js';
import type { DB, ServerStatus } from '../../core/db/schema.js';

type Executor = Kysely<DB> | Transaction<DB>;
export type ServerSort = 'rank' | 'players' | 'newest' | 'votes' | 'relevance';

export interface CatalogRefJson {
  id: string;
  name: string;
  slug: string;
}

/** A server as lists show it: no markdown description. */
export interface ServerCardRow {
  id: string;
  name: string;
  slug: string;
  short_description: string | null;
  ip: string;
  port: number;
  online: number | boolean;
  online_players: number;
  max_players: number;
  rank: number | null;
  /** This month's votes (0012_server_votes) and of all time. */
  vote_count: number;
  total_votes: number;
  status: ServerStatus;
  owner_type: 'USER' | 'TEAM';
  owner_id: string;
  logo_key: string | null;
  banner_key: string | null;
  last_reported_at: string | null;
  created_at: string;
  updated_at: string;
  owner_username: string | null;
  owner_display_name: string | null;
  owner_image_key: string | null;
  team_name: string | null;
  team_slug: string | null;
  team_logo_key: string | null;
  /** JSON arrays of CatalogRefJson: text on SQLite, parsed on PostgreSQL. */
  tags: unknown;
  categories: unknown;
}

export interface ServerDetailRow extends ServerCardRow {
  description: string | null;
  status_reason: string | null;
  game_version: string | null;
  motd: string | null;
  latency_ms: number | null;
  last_heartbeat_at: string | null;
}

const CARD_COLUMNS = [
  'servers.id',
  'servers.name',
  'servers.slug',
  'servers.short_description',
  'servers.ip',
  'servers.port',
  'servers.online',
  'servers.online_players',
  'servers.max_players',
  'servers.rank',
  'servers.vote_count',
  'servers.total_votes',
  'servers.status',
  'servers.owner_type',
  'servers.owner_id',
  'servers.logo_key',
  'servers.banner_key',
  'servers.last_reported_at',
  'servers.created_at',
  'servers.updated_at',
  'owner_user.username as owner_username',
  'owner_user.display_name as owner_display_name',
  'owner_user.image_key as owner_image_key',
  'owner_team.name as team_name',
  'owner_team.slug as team_slug',
  'owner_team.logo_key as team_logo_key',
] as const;

export function cards(db: Executor, dialect: DialectName) {
  return db
    .selectFrom('servers')
    .leftJoin('users as owner_user', (join) =>
      join.onRef('owner_user.id', '=', 'servers.owner_id').on('servers.owner_type', '=', 'USER'),
    )
    .leftJoin('teams as owner_team', (join) =>
      join.onRef('owner_team.id', '=', 'servers.owner_id').on('servers.owner_type', '=', 'TEAM'),
    )
    .select(CARD_COLUMNS)
    .select((eb) => [
      jsonArrayFrom(
        dialect,
        eb
          .selectFrom('server_tag_links')
          .innerJoin('server_tags', 'server_tags.id', 'server_tag_links.tag_id')
          .select(['server_tags.id', 'server_tags.name', 'server_tags.slug'])
          .whereRef('server_tag_links.server_id', '=', 'servers.id')
          .orderBy('server_tags.name'),
      ).as('tags'),
      jsonArrayFrom(
        dialect,
        eb
          .selectFrom('server_category_links')
          .innerJoin('server_categories', 'server_categories.id', 'server_category_links.category_id')
          .select(['server_categories.id', 'server_categories.name', 'server_categories.slug'])
          .whereRef('server_category_links.server_id', '=', 'servers.id')
          .orderBy('server_categories.position')
          .orderBy('server_categories.name'),
      ).as('categories'),
    ]);
}

function details(db: Executor, dialect: DialectName) {
  return cards(db, dialect).select([
    'servers.description',
    'servers.status_reason',
    // The last heartbeat's facts (keys/heartbeat.service.ts).
    'servers.game_version',
    'servers.motd',
    'servers.latency_ms',
    'servers.last_heartbeat_at',
  ]);
}

export type CardQuery = ReturnType<typeof cards>;

/** The ids of servers, for a page picked before its cards are read. */
export const serverIds = (db: Executor) => db.selectFrom('servers').select('servers.id');
type IdQuery = ReturnType<typeof serverIds>;

/** Every sort ends in a unique key, so pages never overlap or skip; each matches one index of 0005_servers. */
export function sorted<Q extends CardQuery | IdQuery>(query: Q, sort: Exclude<ServerSort, 'relevance'>): Q {
  // Both kinds select from `servers`; the union's orderBy overloads do not resolve on their own.
  const servers = query as IdQuery;
  switch (sort) {
    case 'rank':
      return servers.orderBy('servers.rank', (ob) => ob.asc().nullsLast()).orderBy('servers.id') as Q;
    case 'players':
      return servers
        .orderBy('servers.online_players', 'desc')
        .orderBy('servers.created_at')
        .orderBy('servers.id') as Q;
    case 'newest':
      return servers.orderBy('servers.created_at', 'desc').orderBy('servers.id', 'desc') as Q;
    // servers_status_votes_idx (0012_server_votes); this month's votes, then the players sort's tie-breakers.
    case 'votes':
      return servers
        .orderBy('servers.vote_count', 'desc')
        .orderBy('servers.created_at')
        .orderBy('servers.id') as Q;
  }
}

const detailBySlug = prepared<ServerDetailRow, [string]>(1, (db, dialect, slug) =>
  details(db, dialect).where('servers.slug', '=', slug!),
);
const detailById = prepared<ServerDetailRow, [string]>(1, (db, dialect, id) =>
  details(db, dialect).where('servers.id', '=', id!),
);

export async function findServerDetail(
  db: Kysely<DB>,
  dialect: DialectName,
  by: { id: string } | { slug: string },
): Promise<ServerDetailRow | undefined> {
  const rows = 'id' in by ? await detailById(db, dialect, by.id) : await detailBySlug(db, dialect, by.slug);
  return rows[0];
}

export interface ServerSummaryRow {
  id: string;
  name: string;
  slug: string;
  short_description: string | null;
  ip: string;
  port: number;
  online: number | boolean;
  online_players: number;
  max_players: number;
  rank: number | null;
  vote_count: number;
  total_votes: number;
  status: ServerStatus;
  logo_key: string | null;
  banner_key: string | null;
  created_at: string;
}

/** The servers of one owner, newest first; only APPROVED ones unless `all`. */
export function listServersOfOwner(
  db: Executor,
  owner: { ownerType: 'USER' | 'TEAM'; ownerId: string },
  all: boolean,
): Promise<ServerSummaryRow[]> {
  let query = db
    .selectFrom('servers')
    .select([
      'id',
      'name',
      'slug',
      'short_description',
      'ip',
      'port',
      'online',
      'online_players',
      'max_players',
      'rank',
      'vote_count',
      'total_votes',
      'status',
      'logo_key',
      'banner_key',
      'created_at',
    ])
    .where('owner_type', '=', owner.ownerType)
    .where('owner_id', '=', owner.ownerId);
  if (!all) query = query.where('status', '=', 'APPROVED');
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

/** Servers in one moderation status, oldest status change first (the moderation queue). */
export function listServersInStatus(
  db: Kysely<DB>,
  dialect: DialectName,
  status: ServerStatus,
  limit: number,
  offset: number,
): Promise<ServerDetailRow[]> {
  return details(db, dialect)
    .where('servers.status', '=', status)
    .orderBy('servers.status_updated_at')
    .orderBy('servers.id')
    .limit(limit)
    .offset(offset)
    .execute() as Promise<ServerDetailRow[]>;
}

export async function countServersInStatus(db: Executor, status: ServerStatus): Promise<number> {
  const row = await db
    .selectFrom('servers')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('status', '=', status)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
