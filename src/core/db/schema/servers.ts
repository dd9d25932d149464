// The server directory, its catalogs and moderation history.
// Row types as Kysely sees them; ../schema.ts gathers them into DB.
import type { Generated } from 'kysely';

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
  /** 1-based position among APPROVED servers by score (then older listing); null for the others. */
  rank: number | null;
  /** The transparent rank (0013_server_rank), written each minute by the rank job for every server. */
  score: Generated<number>;
  votes_30d: Generated<number>;
  average_players_7d: Generated<number>;
  uptime_7d: Generated<number>;
  /** First approval: the age part of the score and the rank's tie-breaker; null until approved. */
  listed_at: string | null;
  /** When the rank job last changed the score columns; null before its first run for the server. */
  score_computed_at: string | null;
  status: ServerStatus;
  /** Reason of the last REJECT or SUSPEND; cleared on APPROVE. */
  status_reason: string | null;
  status_updated_at: string;
  /** 'USER' | 'TEAM' */
  owner_type: 'USER' | 'TEAM';
  owner_id: string;
  logo_key: string | null;
  banner_key: string | null;
  /** Votes this UTC month (0012_server_votes); 0 once vote_month is not the current month. */
  vote_count: Generated<number>;
  /** 'YYYY-MM' (UTC) vote_count belongs to; null before the first vote. */
  vote_month: string | null;
  total_votes: Generated<number>;
  /** Last heartbeat or POST /servers/:id/status; null when the server never reported. */
  last_reported_at: string | null;
  /** Last accepted POST /servers/heartbeat (0010_server_keys); the 30 s rule counts from it. */
  last_heartbeat_at: string | null;
  /** From the last heartbeat (null when it sent none): game version, plain-text MOTD, latency. */
  game_version: string | null;
  motd: string | null;
  latency_ms: number | null;
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
