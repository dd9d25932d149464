// Server votes and Votifier settings (spec/extensions.md §3).
// Row types as Kysely sees them; ../schema.ts merges the tables below into DB.

export type VoteDeliveryStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

/** One vote; also the durable work item of its Votifier delivery. */
export interface ServerVotesTable {
  id: string;
  server_id: string;
  user_id: string;
  /** The in-game name the voter entered. */
  username: string;
  /** IPv4 address or IPv6 /64 prefix (core/files/client-ip.ts): the per-client cooldown key; null once forgotten. */
  client_key: string | null;
  /** The voter's IP address, sent in the Votifier payload; never shown; null once forgotten. */
  address: string | null;
  created_at: string;
  /** Null when the server had no enabled Votifier at the time of the vote. */
  delivery_status: VoteDeliveryStatus | null;
  delivery_attempts: number;
  delivery_last_error: string | null;
  /** When the next attempt is due; while an attempt runs, the end of its lease. */
  delivery_next_at: string | null;
  delivery_last_attempt_at: string | null;
}

export interface ServerVotifiersTable {
  server_id: string;
  host: string;
  port: number;
  /** The shared token, sealed with createSecretBox(SECRET, 'votifier-token'). */
  token_sealed: string;
  enabled: boolean | number;
  created_at: string;
  updated_at: string;
}

/** Table name → row type, merged into DB. */
export interface ServerVotesTables {
  server_votes: ServerVotesTable;
  server_votifiers: ServerVotifiersTable;
}
