// The rows behind the Atom feeds: APPROVED resources with their approval time and owner, and APPROVED versions
// of APPROVED resources. Each read is one query capped at FEED_SIZE rows, whatever the number of matches.
//
// Approval time: resource_versions.approved_at, and resources.approved_at (the first APPROVE, stamped by the
// moderation; a later SUSPEND/UNSUSPEND or re-approval does not make a resource new again). Both are indexed with
// the status, so a feed reads the newest 50 from the index instead of sorting every match.
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import type { DB, ResourceStatus, ResourceType } from '../../core/db/schema.js';
import { resourceFilterCondition, resourcesWithOwner } from '../resources/resource-views.repo.js';
import type { ResourceFilter } from '../resources/resource-views.repo.js';

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
  return resourcesWithOwner(db).select([
    'resources.owner_type',
    'resources.owner_id',
    'owner_user.username as owner_username',
    'owner_user.display_name as owner_display_name',
    'owner_team.name as owner_team_name',
  ]);
}

/** Newest approval first among the APPROVED resources the filter keeps (an owner, catalogue filters). */
function approvedResources(
  db: Kysely<DB>,
  dialect: DialectName,
  filter: Omit<ResourceFilter, 'status' | 'visibility' | 'search'>,
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
    .where((eb) =>
      resourceFilterCondition(eb as unknown as ExpressionBuilder<DB, 'resources'>, dialect, {
        ...filter,
        status: 'APPROVED',
      }),
    )
    .orderBy('resources.approved_at', 'desc')
    .orderBy('resources.id', 'desc')
    .limit(FEED_SIZE)
    .execute();
}

export function listOwnerResources(
  db: Kysely<DB>,
  dialect: DialectName,
  owner: FeedOwner,
): Promise<FeedResourceRow[]> {
  return approvedResources(db, dialect, { owner });
}

export function listCatalogueResources(
  db: Kysely<DB>,
  dialect: DialectName,
  filter: CatalogueFilter,
): Promise<FeedResourceRow[]> {
  return approvedResources(db, dialect, filter);
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
