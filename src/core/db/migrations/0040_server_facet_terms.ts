import { sql } from 'kysely';
import type { Kysely, RawBuilder } from 'kysely';
import type { MigrationContext } from '../migrator.js';
import { analyzeNewIndex } from './statistics.js';

/** The weighted words of a server's document, as 0025 defined them. */
const SERVER_WORDS = sql`
  setweight(to_tsvector('simple', name_text), 'A') ||
  setweight(to_tsvector('simple', keywords_text), 'B') ||
  setweight(to_tsvector('simple', body_text), 'C') ||
  setweight(to_tsvector('simple', owner_text), 'D')`;

/** The facet terms as lexemes, taken literally (no parsing: `#tag/<id>` stays one lexeme). */
const SERVER_TERMS = sql`array_to_tsvector(string_to_array(facet_terms, ' '))`;

/** A server's tag and category terms, one row each: `#tag/<id>`, `#category/<id>` (server-documents.ts). */
const TERM_ROWS = sql`
  select '#tag/' || tl.tag_id as term from server_tag_links tl where tl.server_id = server_search.server_id
  union all
  select '#category/' || cl.category_id from server_category_links cl where cl.server_id = server_search.server_id`;

/** Each server's terms, sorted and separated by one space, as server-documents.ts writes them. */
const FILLED_TERMS = {
  postgres: sql`coalesce((select string_agg(t.term, ' ' order by t.term collate "C") from (${TERM_ROWS}) t), '')`,
  // group_concat takes no order: it keeps the order of the sorted rows it is given.
  sqlite: sql`coalesce((select group_concat(t.term, ' ') from (${TERM_ROWS} order by 1) t), '')`,
};

/**
 * server_search gains `facet_terms`: the server's tags and categories as terms (search/server-documents.ts
 * serverFacetTerm), written with the rest of the document. On PostgreSQL they also become lexemes of its
 * tsvector, so that a search with tags or categories is one GIN scan intersecting the words with the lists'
 * terms. Before, the count hashed the lists' link rows against the search's documents: at 1M resources (180k
 * servers) 100 searches with a tag on 32k servers took p50 / p90 34.7 / 168 ms a request, 17.6 / 41 after.
 * The migration took 38 s there. The document column is dropped (and its index with it) before the terms are filled, so the rows
 * are written once and the GIN index built once. SQLite keeps the same column (the same document on both
 * dialects); its FTS5 index does not read it: the servers' search with lists there counts through the links.
 */
export function serverFacetTerms({ dialect }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'postgres') await sql`alter table server_search drop column document`.execute(db);
      await sql`alter table server_search add column facet_terms text not null default ''`.execute(db);
      await sql`update server_search set facet_terms = ${FILLED_TERMS[dialect]}`.execute(db);
      if (dialect !== 'postgres') return;
      await addServerDocument(db, sql`${SERVER_WORDS} || ${SERVER_TERMS}`);
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'postgres') await sql`alter table server_search drop column document`.execute(db);
      await sql`alter table server_search drop column facet_terms`.execute(db);
      if (dialect === 'postgres') await addServerDocument(db, SERVER_WORDS);
    },
  };
}

async function addServerDocument(db: Kysely<unknown>, document: RawBuilder<unknown>): Promise<void> {
  await sql`alter table server_search add column document tsvector generated always as (${document}) stored`.execute(
    db,
  );
  await sql`create index server_search_document_idx on server_search using gin (document)`.execute(db);
  await analyzeNewIndex(db, 'postgres', 'server_search', 'server_search_document_idx');
}
