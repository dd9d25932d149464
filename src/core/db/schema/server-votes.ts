// Server votes and Votifier settings (spec/extensions.md §3).
// Row types as Kysely sees them; ../schema.ts merges the tables below into DB.

/** Table name → row type, merged into DB. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ServerVotesTables {}
