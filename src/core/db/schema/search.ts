// Search documents (issue 17): one row per searchable object, holding its text as src/modules/search/text.ts
// makes it. SQLite indexes the rows with an external-content FTS5 table (resource_search_fts, kept in step by
// triggers); PostgreSQL with a weighted tsvector under a GIN index (resources': in resource_search_vectors).
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
  /**
   * JSON array of [facet, scope, value] keys the resource counts under (modules/search/resource-facets.ts):
   * triggers keep resource_facet_counts in step with it. (SQLite also derives `facet_terms` from it, a virtual
   * generated column that only FTS5 reads: migration 0031. It is left out of this type: nothing writes it.)
   */
  facet_keys: string;
}

/**
 * PostgreSQL only (migration 0034): a document's vectors, kept from its resource_search row by triggers, in a
 * narrow table of their own so that counting matches through GIN visits small rows.
 */
export interface ResourceSearchVectorsTable {
  resource_id: string;
  /** The name's words (resource_name_words), under their own GIN index. */
  name_words: string;
  /** The name's and keywords' words with their starts (resource_head_words, migration 0043), under GIN too. */
  head_words: string;
  /** The weighted words, their starts (`~epic`) and the facet terms (`#facet/scope/value`): resource_document. */
  document: string;
  /** Its scope-'' facet keys as int8 codes (resource_facet_codes, migration 0035): the facets' counts read them. */
  facet_codes: string[];
}

/**
 * SQLite only (migration 0037): every unscoped facet value a document has had, as a small integer (its rowid,
 * never reused), added by triggers on resource_search.
 */
export interface ResourceFacetValueCodesTable {
  code: Generated<number>;
  facet: string;
  value: string;
}

/** SQLite only (migration 0037): a document's unscoped facet values as a JSON array of their codes. */
export interface ResourceSearchFacetCodesTable {
  doc_id: number;
  codes: string;
}

/** APPROVED resources per facet value (type, tag, category, game version), maintained by triggers. */
export interface ResourceFacetCountsTable {
  /** 'type', 'tag', 'category' or 'version'. */
  facet: string;
  /** '' for all resources, or a resource type: the count among resources of that type. */
  scope: string;
  /** The resource type, or the catalog entry's id. */
  value: string;
  resource_count: number;
}

/** One row per APPROVED server (what GET /servers can show); none for the others (0025_directory_search). */
export interface ServerSearchTable {
  doc_id: Generated<number>;
  server_id: string;
  /** Weight A: the name. */
  name_text: string;
  /** Weight B: tag and category names and the short description. */
  keywords_text: string;
  /** Weight C: the description, markdown stripped, at most MAX_BODY_WORDS words. */
  body_text: string;
  /** Weight D: the owner's username and display name, or the team's name. */
  owner_text: string;
  /**
   * The server's tags and categories as terms, `#tag/<id> #category/<id>`, sorted, one space apart (0040); on
   * PostgreSQL also lexemes of its document.
   */
  facet_terms: string;
}

/**
 * PostgreSQL only (migration 0045): a server document's tsvector, copied from its server_search row by triggers
 * into a hash-partitioned table that the counts of a search's matches read.
 */
export interface ServerSearchVectorsTable {
  server_id: string;
  /** server_search.document: the weighted words and the facet terms. */
  document: string;
}

/** One row per team. */
export interface TeamSearchTable {
  doc_id: Generated<number>;
  team_id: string;
  /** Weight A: the name. */
  name_text: string;
  /** Weight B: the words of the slug. */
  slug_text: string;
  /** Weight C: the description. */
  body_text: string;
}

/** One row per account, whatever its status (GET /users/search leaves banned ones out when it reads). */
export interface UserSearchTable {
  doc_id: Generated<number>;
  user_id: string;
  /** Weight A: the username, as its words, its camel-case parts and joined (modules/search/user-documents.ts). */
  name_text: string;
  /** Weight B: the display name. */
  display_text: string;
}

export interface SearchTables {
  resource_search: ResourceSearchTable;
  resource_search_vectors: ResourceSearchVectorsTable;
  resource_facet_counts: ResourceFacetCountsTable;
  resource_facet_value_codes: ResourceFacetValueCodesTable;
  resource_search_facet_codes: ResourceSearchFacetCodesTable;
  server_search: ServerSearchTable;
  server_search_vectors: ServerSearchVectorsTable;
  team_search: TeamSearchTable;
  user_search: UserSearchTable;
}
