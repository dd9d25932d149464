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
}
