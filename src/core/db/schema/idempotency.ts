// Idempotency-Key answers (issue 12 conventions).
// Row types as Kysely sees them; ../schema.ts merges the tables below into DB. Owned by the HTTP conventions work.

/** Table name → row type, merged into DB. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface IdempotencyTables {}
