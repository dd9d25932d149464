// Accounts: users, credentials, follows, social links.
// Row types as Kysely sees them; ../schema.ts gathers them into DB.
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
  /** Trusted creator (spec/extensions.md §4): their submitted versions with clean files are approved at once. */
  trusted: Generated<boolean | number>;
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
  /** Space-separated scopes (core/auth/scopes.ts), cut down per request to what the owner's role allows. */
  scopes: string;
  /** The team a team-bound key acts for; null for an unrestricted key. */
  team_id: string | null;
  last_used_ip: string | null;
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
