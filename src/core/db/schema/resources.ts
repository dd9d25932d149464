// Resources, their catalogs, links, contributors, reactions and moderation history.
// Row types as Kysely sees them; ../schema.ts gathers them into DB.
import type { Generated } from 'kysely';

export type ResourceType =
  'MOD' | 'PLUGIN' | 'ASSET_PACK' | 'DATA_PACK' | 'WORLD' | 'PREFAB' | 'MODPACK' | 'PREMADE_SERVER';
export type ResourceStatus = 'PENDING' | 'APPROVED' | 'REJECTED' | 'SUSPENDED';
export type ResourceContributorRole = 'CONTRIBUTOR' | 'MAINTAINER';

export interface ResourcesTable {
  id: string;
  name: string;
  /** Lower-cased name, the sort key of sortBy=name. */
  name_key: string;
  slug: string;
  short_description: string;
  description: string;
  type: ResourceType;
  status: ResourceStatus;
  owner_type: 'USER' | 'TEAM';
  owner_id: string;
  icon_key: string | null;
  banner_key: string | null;
  downloads: Generated<number>;
  like_count: Generated<number>;
  favorite_count: Generated<number>;
  /** JSON {categories, tags, gameVersions} as the API shows them; rewritten whenever a link or a catalog entry changes. */
  catalog_refs: Generated<string>;
  /** Maintained by the versions module. */
  latest_version_id: string | null;
  /** The first approval (feeds sort by it); null until then. */
  approved_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ResourceCategoriesTable {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  resource_type: ResourceType;
  usage_count: Generated<number>;
  position: number;
  created_at: string;
  updated_at: string;
}

export interface ResourceTagsTable {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  usage_count: Generated<number>;
  created_at: string;
  updated_at: string;
}

/** How many resources of one type carry a tag (popular tags per type). */
export interface ResourceTagTypeUsageTable {
  tag_id: string;
  resource_type: ResourceType;
  usage_count: number;
}

export interface GameVersionsTable {
  id: string;
  name: string;
  /** Higher is newer. */
  release_order: number;
  released_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ResourceCategoryLinksTable {
  resource_id: string;
  category_id: string;
}

export interface ResourceTagLinksTable {
  resource_id: string;
  tag_id: string;
  /** The resource's type, filled by a trigger on insert (migration 0029): never written by the app. */
  resource_type: Generated<ResourceType>;
  /**
   * The resource's status and sort keys, filled on insert and rewritten on every change of the resource by
   * triggers (migration 0046): never written by the app.
   */
  resource_status: Generated<ResourceStatus>;
  resource_created_at: Generated<string>;
  resource_updated_at: Generated<string>;
  resource_downloads: Generated<number>;
  resource_like_count: Generated<number>;
  resource_name_key: Generated<string>;
}

export interface ResourceGameVersionsTable {
  resource_id: string;
  game_version_id: string;
}

export interface ResourceExternalLinksTable {
  id: string;
  resource_id: string;
  title: string;
  url: string;
  type: string;
  position: number;
  created_at: string;
  updated_at: string;
}

export interface ResourceContributorsTable {
  id: string;
  resource_id: string;
  user_id: string;
  role: ResourceContributorRole;
  created_at: string;
  updated_at: string;
}

/** Shape of resource_likes and resource_favorites. */
export interface ResourceReactionsTable {
  id: string;
  resource_id: string;
  user_id: string;
  created_at: string;
}

export interface ResourceModerationEventsTable {
  id: string;
  resource_id: string;
  /** RESUBMIT: an owner-side edit sent a REJECTED resource back to PENDING (no moderator). */
  action: 'APPROVE' | 'REJECT' | 'SUSPEND' | 'UNSUSPEND' | 'RESUBMIT';
  from_status: ResourceStatus;
  to_status: ResourceStatus;
  reason: string | null;
  moderator_id: string | null;
  created_at: string;
}
