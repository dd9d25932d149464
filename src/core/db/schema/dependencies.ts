// Version dependencies (spec/extensions.md §2.2).
// Row types as Kysely sees them; ../schema.ts merges the tables below into DB. Owned by the dependencies work.

/** Table name → row type, merged into DB. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface DependencyTables {}
