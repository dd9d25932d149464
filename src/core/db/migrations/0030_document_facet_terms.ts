import { sql } from 'kysely';
import type { Kysely, RawBuilder } from 'kysely';
import type { MigrationContext } from '../migrator.js';
import { analyzeNewIndex } from './statistics.js';

/** The weighted words of a document, as 0024 defined them. */
export const DOCUMENT_WORDS = sql`
  setweight(to_tsvector('simple', name_text), 'A') ||
  setweight(to_tsvector('simple', keywords_text), 'B') ||
  setweight(to_tsvector('simple', body_text), 'C') ||
  setweight(to_tsvector('simple', owner_text), 'D')`;

/** The document as 0030 defines it: the weighted words, then the facet terms. */
export const DOCUMENT_WITH_FACET_TERMS = sql`${DOCUMENT_WORDS} || resource_facet_terms(facet_keys)`;

/**
 * PostgreSQL: the document column computed anew as `document`, with its GIN index. Dropping the column drops the
 * index; a generated column's expression cannot be altered on 15. Every row is recomputed (a table rewrite).
 */
export async function redefineDocument(db: Kysely<unknown>, document: RawBuilder<unknown>): Promise<void> {
  await sql`alter table resource_search drop column document`.execute(db);
  await addDocument(db, document);
}

/** PostgreSQL: resource_search's generated `document` column and its GIN index, computed for every row. */
export async function addDocument(db: Kysely<unknown>, document: RawBuilder<unknown>): Promise<void> {
  await sql`alter table resource_search add column document tsvector generated always as (${document}) stored`.execute(
    db,
  );
  await sql`create index resource_search_document_idx on resource_search using gin (document)`.execute(db);
  await analyzeNewIndex(db, 'postgres', 'resource_search', 'resource_search_document_idx');
}

/**
 * PostgreSQL: each document's facet keys (its type, tags, categories and game versions, search/resource-facet-keys.ts)
 * also become terms of its tsvector, `#facet/scope/value` (search/resource-facet-keys.ts facetTerms), so that a search
 * with a type or catalog filters is one GIN scan intersecting the words with the filter's terms. Before, the
 * search's matches and the catalog's link rows were joined, and the count probed one side row by row: at 1M a
 * common word with `tags=flower&type=MOD` (137,943 resources) tested 94,065 documents to count 10,001, 1.5 s.
 * A folded word is letters and digits only (search/text.ts), so no search word or prefix can reach a term that
 * starts with `#`. The terms follow facet_keys, written in the same statement as the rest of the document. The
 * column is recomputed for every document (a table rewrite: 4.5 min at 1M here). SQLite is unchanged.
 */
export function documentFacetTerms({ dialect }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`
        create function resource_facet_terms(keys text) returns tsvector
        language sql immutable parallel safe as $$
          select array_to_tsvector(array(
            select '#' || (k->>0) || '/' || (k->>1) || '/' || (k->>2) from json_array_elements(keys::json) k))
        $$`.execute(db);
      await redefineDocument(db, DOCUMENT_WITH_FACET_TERMS);
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await redefineDocument(db, DOCUMENT_WORDS);
      await sql`drop function resource_facet_terms(text)`.execute(db);
    },
  };
}
