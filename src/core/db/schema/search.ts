// Search documents (issue 17): one row per searchable object, holding its text as src/modules/search/text.ts
// makes it. SQLite indexes the rows with an external-content FTS5 table (resource_search_fts, kept in step by
// triggers); PostgreSQL with a generated, weighted tsvector column and a GIN index.
import type { Generated } from 'kysely';

/** One row per APPROVED resource (what GET /resources can show); none for the others. */
export interface ResourceSearchTable {
  /** The FTS5 rowid on SQLite; an identity column on PostgreSQL. Never shown. */
  doc_id: Generated<number>;
  resource_id: string;
  /** Weight A: the name. */
  name_text: string;
  /** Weight B: tag and category names and the short description. */
  keywords_text: string;
  /** Weight C: the description, markdown stripped, at most MAX_BODY_WORDS words. */
  body_text: string;
  /** Weight D: the owner's username and display name, or the team's name. */
  owner_text: string;
}

export interface SearchTables {
  resource_search: ResourceSearchTable;
}
