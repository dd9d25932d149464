// The rows behind the Atom feeds: APPROVED resources with their approval time and owner, and APPROVED versions
// of APPROVED resources. Each read is one query capped at FEED_SIZE rows, whatever the number of matches.
//
// Approval time: resource_versions.approved_at, and resources.approved_at (the first APPROVE, stamped by the
// moderation; a later SUSPEND/UNSUSPEND or re-approval does not make a resource new again). Both are indexed with
// the status, so a feed reads the newest 50 from the index instead of sorting every match.
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { DB, ResourceStatus, ResourceType } from '../../core/db/schema.js';

/** Entries per feed (extensions §1.3). */
export const FEED_SIZE = 50;

export interface OwnerColumns {
  owner_type: 'USER' | 'TEAM';
  owner_id: string;
  owner_username: string | null;
  owner_display_name: string | null;
  owner_team_name: string | null;
}

export interface FeedResourceRow extends OwnerColumns {
  id: string;
  name: string;
  short_description: string;
  type: ResourceType;
  /** JSON {categories, tags, gameVersions}: read with parseCatalogRefs. */
  catalog_refs: string;
  created_at: string;
  updated_at: string;
  /** The first approval, or the creation time without one. */
  approved_at: string;
}

export interface FeedResourceHead extends OwnerColumns {
  id: string;
  name: string;
  status: ResourceStatus;
  updated_at: string;
}

export interface FeedVersionRow {
  id: string;
  resource_id: string;
  resource_name: string;
  version_number: string;
  name: string | null;
  channel: string;
  /** Sanitized HTML (versions/changelog.ts). */
  changelog: string | null;
  updated_at: string;
  /** approved_at, or the creation time for an APPROVED version without one. */
  approved_at: string;
}

/** Narrows the feed to resources matching the catalogue filters (IDs already resolved). */
export interface CatalogueFilter {
  type?: ResourceType;
  tagIds?: string[];
  categoryIds?: string[];
}

export type FeedOwner = { type: 'USER' | 'TEAM'; id: string };

function withOwner(db: Kysely<DB>) {
  return db
    .selectFrom('resources')
    .leftJoin('users as owner_user', (join) =>
      join.onRef('owner_user.id', '=', 'resources.owner_id').on('resources.owner_type', '=', 'USER'),
    )
    .leftJoin('teams as owner_team', (join) =>
      join.onRef('owner_team.id', '=', 'resources.owner_id').on('resources.owner_type', '=', 'TEAM'),
    )
    .select([
      'resources.owner_type',
      'resources.owner_id',
      'owner_user.username as owner_username',
      'owner_user.display_name as owner_display_name',
      'owner_team.name as owner_team_name',
    ]);
}

type ResourcesScope = ExpressionBuilder<DB, 'resources'>;

/** Newest approval first; `where` narrows the APPROVED resources (an owner, catalogue filters). */
function approvedResources(
  db: Kysely<DB>,
  narrow: (eb: ResourcesScope) => ReturnType<ResourcesScope['and']>,
): Promise<FeedResourceRow[]> {
  return withOwner(db)
    .select([
      'resources.id',
      'resources.name',
      'resources.short_description',
      'resources.type',
      'resources.catalog_refs',
      'resources.created_at',
      'resources.updated_at',
    ])
    .select((eb) =>
      eb.fn.coalesce('resources.approved_at', 'resources.created_at').$castTo<string>().as('approved_at'),
    )
    .where('resources.status', '=', 'APPROVED')
    .where((eb) => narrow(eb as unknown as ResourcesScope))
    .orderBy('resources.approved_at', 'desc')
    .orderBy('resources.id', 'desc')
    .limit(FEED_SIZE)
    .execute();
}

export function listOwnerResources(db: Kysely<DB>, owner: FeedOwner): Promise<FeedResourceRow[]> {
  return approvedResources(db, (eb) =>
    eb.and([eb('resources.owner_type', '=', owner.type), eb('resources.owner_id', '=', owner.id)]),
  );
}

export function listCatalogueResources(db: Kysely<DB>, filter: CatalogueFilter): Promise<FeedResourceRow[]> {
  return approvedResources(db, (eb) => {
    const conditions = [];
    if (filter.type !== undefined) conditions.push(eb('resources.type', '=', filter.type));
    if (filter.tagIds !== undefined) {
      const tagged = eb
        .selectFrom('resource_tag_links')
        .select('resource_tag_links.resource_id')
        .where('resource_tag_links.tag_id', 'in', filter.tagIds);
      conditions.push(eb('resources.id', 'in', tagged));
    }
    if (filter.categoryIds !== undefined) {
      const categorized = eb
        .selectFrom('resource_category_links')
        .select('resource_category_links.resource_id')
        .where('resource_category_links.category_id', 'in', filter.categoryIds);
      conditions.push(eb('resources.id', 'in', categorized));
    }
    return eb.and(conditions);
  });
}

export function findResourceHead(db: Kysely<DB>, id: string): Promise<FeedResourceHead | undefined> {
  return withOwner(db)
    .select(['resources.id', 'resources.name', 'resources.status', 'resources.updated_at'])
    .where('resources.id', '=', id)
    .executeTakeFirst();
}

/** APPROVED versions of APPROVED resources, newest approval first: of one resource, or of an owner's. */
export function listApprovedVersions(
  db: Kysely<DB>,
  of: { resourceId: string } | { owner: FeedOwner },
): Promise<FeedVersionRow[]> {
  let query = db
    .selectFrom('resource_versions as version')
    .innerJoin('resources', 'resources.id', 'version.resource_id')
    .select([
      'version.id',
      'version.resource_id',
      'resources.name as resource_name',
      'version.version_number',
      'version.name',
      'version.channel',
      'version.changelog',
      'version.updated_at',
    ])
    .select((eb) =>
      eb.fn.coalesce('version.approved_at', 'version.created_at').$castTo<string>().as('approved_at'),
    )
    .where('version.status', '=', 'APPROVED')
    .where('resources.status', '=', 'APPROVED');
  query =
    'resourceId' in of
      ? query.where('version.resource_id', '=', of.resourceId)
      : query.where('resources.owner_type', '=', of.owner.type).where('resources.owner_id', '=', of.owner.id);
  return query
    .orderBy('version.approved_at', 'desc')
    .orderBy('version.id', 'desc')
    .limit(FEED_SIZE)
    .execute();
}
