// Row types of every table, as Kysely sees them. Columns are snake_case; mappers turn rows into API objects.
// Timestamps are ISO 8601 strings on both dialects (normalized in database.ts).
// Booleans come back as 0/1 from SQLite: read them through Boolean() in mappers.
import type { Generated } from 'kysely';

export type Role = 'USER' | 'MODERATOR' | 'ADMIN' | 'SUPER_ADMIN';
export type UserStatus = 'ACTIVE' | 'SUSPENDED' | 'BANNED';

export interface UsersTable {
  id: string;
  username: string;
  /** Lower-cased username: uniqueness and lookups are case-insensitive. */
  username_key: string;
  email: string;
  password_hash: string | null;
  display_name: string | null;
  bio: string | null;
  location: string | null;
  website: string | null;
  image_key: string | null;
  banner_key: string | null;
  role: Role;
  status: UserStatus;
  suspended_until: string | null;
  follower_count: Generated<number>;
  following_count: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  /** Set when a ban revokes the key: refused with 403 while banned, 401 afterwards. */
  revoked_at: string | null;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  token_hash: string;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
  /** Set when a ban revokes the token: refused with 403 while banned, 401 afterwards. */
  revoked_at: string | null;
}

export interface FollowsTable {
  follower_id: string;
  following_id: string;
  created_at: string;
}

export interface SocialLinksTable {
  id: string;
  /** 'USER' | 'TEAM' | 'SERVER': one table for every owner kind of social link. */
  owner_type: string;
  owner_id: string;
  platform: string;
  url: string;
  position: number;
  created_at: string;
}

export type TeamRole = 'MEMBER' | 'MODERATOR' | 'ADMIN' | 'OWNER';
export type TeamInvitationStatus = 'PENDING' | 'ACCEPTED' | 'DECLINED' | 'CANCELLED';

export interface TeamsTable {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  logo_key: string | null;
  banner_key: string | null;
  /** Mirrors the one team_members row with role OWNER; both change in the same transaction. */
  owner_id: string;
  member_count: Generated<number>;
  /** Moved by the resources module when a resource is created for / moved away from the team. */
  resource_count: Generated<number>;
  /** Moved by the servers module when a server is created for / moved away from the team. */
  server_count: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface TeamMembersTable {
  team_id: string;
  user_id: string;
  role: TeamRole;
  created_at: string;
}

export interface TeamInvitationsTable {
  id: string;
  team_id: string;
  user_id: string;
  invited_by: string;
  role: Exclude<TeamRole, 'OWNER'>;
  status: TeamInvitationStatus;
  expires_at: string;
  created_at: string;
  responded_at: string | null;
}

/** Named row counts kept in step with their tables, so list totals never count a whole table (DESIGN §5). */
export interface CountersTable {
  name: string;
  value: number;
}

export interface DescriptionImagesTable {
  id: string;
  /** 'RESOURCE' | 'SERVER' */
  owner_type: string;
  owner_id: string;
  uploader_id: string;
  storage_key: string;
  sha256: string;
  file_name: string;
  file_size: number;
  /** True until a saved description contains the image; then permanent. */
  is_temporary: boolean;
  /** Whether the owner's saved description contains the image now. */
  is_used: boolean;
  created_at: string;
}

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

export type ServerStatus = 'PENDING' | 'APPROVED' | 'REJECTED' | 'SUSPENDED';

export interface ServersTable {
  id: string;
  name: string;
  slug: string;
  short_description: string | null;
  description: string | null;
  ip: string;
  port: number;
  online: Generated<boolean>;
  online_players: Generated<number>;
  max_players: Generated<number>;
  /** 1-based position among APPROVED servers, written by the rank job; null for the others. */
  rank: number | null;
  status: ServerStatus;
  /** Reason of the last REJECT or SUSPEND; cleared on APPROVE. */
  status_reason: string | null;
  status_updated_at: string;
  /** 'USER' | 'TEAM' */
  owner_type: 'USER' | 'TEAM';
  owner_id: string;
  logo_key: string | null;
  banner_key: string | null;
  /** Last POST /servers/:id/status; null when the server never reported. */
  last_reported_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ServerTagsTable {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  /** APPROVED servers carrying the tag. */
  usage_count: Generated<number>;
  created_at: string;
}

export interface ServerCategoriesTable {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  icon_url: string | null;
  /** APPROVED servers in the category. */
  usage_count: Generated<number>;
  position: number;
  created_at: string;
}

export interface ServerTagLinksTable {
  server_id: string;
  tag_id: string;
}

export interface ServerCategoryLinksTable {
  server_id: string;
  category_id: string;
}

export interface ServerModerationEventsTable {
  id: string;
  server_id: string;
  action: 'APPROVE' | 'REJECT' | 'SUSPEND' | 'RESUBMIT';
  from_status: ServerStatus;
  to_status: ServerStatus;
  reason: string | null;
  notes: string | null;
  /** Null for RESUBMIT (an owner-side edit of a rejected server). */
  moderator_id: string | null;
  created_at: string;
}

export type ReportTargetType = 'USER' | 'RESOURCE';
export type ReportStatus = 'PENDING' | 'UNDER_REVIEW' | 'RESOLVED' | 'DISMISSED';
export type ReportModerationAction = 'TAKE_UNDER_REVIEW' | 'RESOLVE' | 'DISMISS';
export type ReportUserAction = 'WARNING' | 'SUSPENSION' | 'BAN' | 'NONE';

export interface ReportsTable {
  id: string;
  reporter_id: string;
  target_type: ReportTargetType;
  /** Set for USER reports. */
  reported_user_id: string | null;
  /** Set for RESOURCE reports; no foreign key, the report outlives the resource. */
  resource_id: string | null;
  /** The resource's type when it was reported. */
  resource_type: ResourceType | null;
  reason: string;
  description: string | null;
  evidence: string | null;
  status: ReportStatus;
  resolution: string | null;
  moderator_notes: string | null;
  user_action: ReportUserAction | null;
  suspension_days: number | null;
  moderated_by: string | null;
  moderated_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ReportEventsTable {
  id: string;
  report_id: string;
  action: ReportModerationAction;
  from_status: ReportStatus;
  to_status: ReportStatus;
  note: string | null;
  user_action: ReportUserAction | null;
  moderator_id: string | null;
  created_at: string;
}

export interface BadgesTable {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  icon_url: string | null;
  color: string | null;
  is_active: boolean;
  /** Rows in user_badges for the badge; moved in the same transaction as an award or a revocation. */
  awarded_count: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface UserBadgesTable {
  id: string;
  user_id: string;
  badge_id: string;
  awarded_by: string | null;
  reason: string | null;
  awarded_at: string;
}

export type VersionStatusColumn = 'DRAFT' | 'PENDING' | 'APPROVED' | 'REJECTED' | 'ARCHIVED';

export interface ResourceVersionsTable {
  id: string;
  resource_id: string;
  version_number: string;
  name: string | null;
  channel: 'RELEASE' | 'BETA' | 'ALPHA' | 'SNAPSHOT';
  status: VersionStatusColumn;
  /** Sanitized HTML. */
  changelog: string | null;
  downloads: Generated<number>;
  submission_note: string | null;
  rejection_reason: string | null;
  created_at: string;
  updated_at: string;
  submitted_at: string | null;
  approved_at: string | null;
}

export interface VersionGameVersionsTable {
  version_id: string;
  game_version_id: string;
}

export interface VersionFilesTable {
  id: string;
  version_id: string;
  storage_key: string;
  file_name: string;
  display_name: string | null;
  /** bigint: PostgreSQL returns it as a string; read it through Number(). */
  file_size: number;
  file_type: string;
  content_type: string;
  sha256: string;
  sha1: string;
  is_primary: boolean;
  uploaded_at: string;
}

export interface DownloadEventsTable {
  id: string;
  subject_type: 'FILE' | 'VERSION';
  subject_id: string;
  version_id: string;
  client_key: string;
  day: string;
  ip: string;
  user_agent: string | null;
  user_id: string | null;
  created_at: string;
}

export interface VersionModerationEventsTable {
  id: string;
  version_id: string;
  action: string;
  from_status: VersionStatusColumn;
  to_status: VersionStatusColumn;
  reason: string | null;
  actor_id: string | null;
  created_at: string;
}

export interface GalleryImagesTable {
  id: string;
  resource_id: string;
  storage_key: string;
  thumbnail_key: string;
  caption: string | null;
  alt_text: string | null;
  position: number;
  created_at: string;
  updated_at: string;
}

export interface DB {
  description_images: DescriptionImagesTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  sessions: SessionsTable;
  follows: FollowsTable;
  social_links: SocialLinksTable;
  teams: TeamsTable;
  team_members: TeamMembersTable;
  team_invitations: TeamInvitationsTable;
  counters: CountersTable;
  resources: ResourcesTable;
  resource_categories: ResourceCategoriesTable;
  resource_tags: ResourceTagsTable;
  resource_tag_type_usage: ResourceTagTypeUsageTable;
  game_versions: GameVersionsTable;
  resource_category_links: ResourceCategoryLinksTable;
  resource_tag_links: ResourceTagLinksTable;
  resource_game_versions: ResourceGameVersionsTable;
  resource_external_links: ResourceExternalLinksTable;
  resource_contributors: ResourceContributorsTable;
  resource_likes: ResourceReactionsTable;
  resource_favorites: ResourceReactionsTable;
  resource_moderation_events: ResourceModerationEventsTable;
  servers: ServersTable;
  server_tags: ServerTagsTable;
  server_categories: ServerCategoriesTable;
  server_tag_links: ServerTagLinksTable;
  server_category_links: ServerCategoryLinksTable;
  server_moderation_events: ServerModerationEventsTable;
  reports: ReportsTable;
  report_events: ReportEventsTable;
  badges: BadgesTable;
  user_badges: UserBadgesTable;
  resource_versions: ResourceVersionsTable;
  version_game_versions: VersionGameVersionsTable;
  version_files: VersionFilesTable;
  download_events: DownloadEventsTable;
  version_moderation_events: VersionModerationEventsTable;
  gallery_images: GalleryImagesTable;
}
