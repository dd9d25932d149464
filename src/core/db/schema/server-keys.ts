// Server keys (spec/extensions.md §3).
// Row types as Kysely sees them; ../schema.ts merges the tables below into DB.

/** A key a game server sends heartbeats with: only its SHA-256 digest and a display prefix are stored. */
export interface ServerKeysTable {
  id: string;
  server_id: string;
  name: string;
  /** The first characters of the key, so its owner can recognise it in a list. */
  prefix: string;
  key_hash: string;
  created_at: string;
  /** Written at most once a minute, not on every heartbeat. */
  last_used_at: string | null;
}

/** Table name → row type, merged into DB. */
export interface ServerKeysTables {
  server_keys: ServerKeysTable;
}
