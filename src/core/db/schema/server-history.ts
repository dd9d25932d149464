// Server status samples and hourly rollups (spec/extensions.md §3).
// Row types as Kysely sees them; ../schema.ts merges the tables below into DB.

/** One per reporting server per UTC minute, written by the sample-server-status job; kept 48 h. */
export interface ServerSamplesTable {
  server_id: string;
  /** The minute's start (seconds and milliseconds zero). */
  minute_at: string;
  online: boolean;
  online_players: number;
  max_players: number;
}

/** One per server per complete UTC hour that has samples, written by the rollup-server-history job; kept 400 days. */
export interface ServerRollupsTable {
  server_id: string;
  /** The hour's start. */
  hour_at: string;
  /** Sampled minutes of the hour in which the server was online (0..60). */
  online_minutes: number;
  /** Sum of onlinePlayers over the hour's samples: divided by 60 it is the hour's average (missing minutes 0). */
  player_minutes: number;
  peak_players: number;
  max_players: number;
}

/** Table name → row type, merged into DB. */
export interface ServerHistoryTables {
  server_samples: ServerSamplesTable;
  server_rollups: ServerRollupsTable;
}
