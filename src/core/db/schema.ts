// Row types of every table, as Kysely sees them, gathered from one file per domain (schema/).
// Columns are snake_case; mappers turn rows into API objects. Timestamps are ISO 8601 strings on both dialects
// (normalized in database.ts). Booleans come back as 0/1 from SQLite: read them through Boolean() in mappers.
import type { DependencyTables } from './schema/dependencies.js';
import type { IdempotencyTables } from './schema/idempotency.js';
import type {
  ApiKeysTable,
  FollowsTable,
  SessionsTable,
  SocialLinksTable,
  UsersTable,
} from './schema/accounts.js';
import type { TeamInvitationsTable, TeamMembersTable, TeamsTable } from './schema/teams.js';
import type { CountersTable, DescriptionImagesTable } from './schema/shared.js';
import type {
  GameVersionsTable,
  ResourceCategoriesTable,
  ResourceCategoryLinksTable,
  ResourceContributorsTable,
  ResourceExternalLinksTable,
  ResourceGameVersionsTable,
  ResourceModerationEventsTable,
  ResourceReactionsTable,
  ResourceTagLinksTable,
  ResourceTagTypeUsageTable,
  ResourceTagsTable,
  ResourcesTable,
} from './schema/resources.js';
import type {
  ServerCategoriesTable,
  ServerCategoryLinksTable,
  ServerModerationEventsTable,
  ServerTagLinksTable,
  ServerTagsTable,
  ServersTable,
} from './schema/servers.js';
import type { BadgesTable, ReportEventsTable, ReportsTable, UserBadgesTable } from './schema/reports.js';
import type {
  DownloadEventsTable,
  GalleryImagesTable,
  ResourceVersionsTable,
  VersionFilesTable,
  VersionGameVersionsTable,
  VersionModerationEventsTable,
} from './schema/versions.js';
import type { JobRunsTable } from './schema/jobs.js';
import type { EventsTable, WebhookDeliveriesTable, WebhooksTable } from './schema/events.js';
import type { ServerKeysTables } from './schema/server-keys.js';
import type { ServerHistoryTables } from './schema/server-history.js';
import type { ServerVotesTables } from './schema/server-votes.js';
import type { ModerationThreadsTables } from './schema/moderation-threads.js';
import type { AuditTables } from './schema/audit.js';
import type { SearchTables } from './schema/search.js';

export type * from './schema/accounts.js';
export type * from './schema/teams.js';
export type * from './schema/shared.js';
export type * from './schema/resources.js';
export type * from './schema/servers.js';
export type * from './schema/reports.js';
export type * from './schema/versions.js';
export type * from './schema/jobs.js';
export type * from './schema/events.js';
export type * from './schema/server-keys.js';
export type * from './schema/server-history.js';
export type * from './schema/server-votes.js';
export type * from './schema/moderation-threads.js';
export type * from './schema/audit.js';
export type * from './schema/search.js';

// Newer domains declare their tables in their own schema file and are merged here.
export interface DB
  extends
    ServerKeysTables,
    ServerHistoryTables,
    ServerVotesTables,
    ModerationThreadsTables,
    AuditTables,
    DependencyTables,
    IdempotencyTables,
    SearchTables {
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
  job_runs: JobRunsTable;
  events: EventsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
}
