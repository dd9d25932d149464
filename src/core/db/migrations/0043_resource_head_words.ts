import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';
import { defineVectorsWrite } from './0034_resource_search_vectors.js';
import { analyzeNewIndex } from './statistics.js';

/**
 * PostgreSQL: each resource's vectors also hold the words of its name and keywords together (`head_words`, with
 * their 3- to 6-character starts as 0033's terms), under a GIN index of their own, so that relevance's class
 * after the top tier (every word but one in the name, that one in the keywords: search/resource-match.ts
 * allButOneTier) is read from the indexes as SQLite reads it from its fields' FTS5 index (0036). Why: without
 * it a three-word search whose top tier did not fill the page scored every match with two of its words in the
 * name, each tested for the third on its resource_search row (`deserts epic tiny` at 1M: 6,229 names, 68 ms warm,
 * 132 ms cold, in the count and again in the page). The vector is stripped (no positions: no phrase reads it) and
 * moves out of line with the document (toast_tuple_target, 0034); the rows stay narrow for the counts.
 */
export function resourceHeadWords({ dialect }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`
        create function resource_head_words(name_text text, keywords_text text) returns tsvector
        language sql immutable parallel safe as $$
          select with_prefix_terms(strip(to_tsvector('simple', name_text) || to_tsvector('simple', keywords_text)))
        $$`.execute(db);
      await sql`alter table resource_search_vectors add column head_words tsvector`.execute(db);
      await sql`
        update resource_search_vectors v set head_words = resource_head_words(s.name_text, s.keywords_text)
        from resource_search s where s.resource_id = v.resource_id`.execute(db);
      await sql`alter table resource_search_vectors alter column head_words set not null`.execute(db);
      await defineVectorsWrite(db, true, true);
      // A GIN index builds faster with memory to sort its entries in (search/rebuild.ts does the same).
      await sql`set local maintenance_work_mem = '512MB'`.execute(db);
      await sql`create index resource_search_head_idx on resource_search_vectors using gin (head_words)`.execute(
        db,
      );
      await analyzeNewIndex(db, dialect, 'resource_search_vectors', 'resource_search_head_idx');
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await defineVectorsWrite(db, true);
      await sql`alter table resource_search_vectors drop column head_words`.execute(db);
      await sql`drop function resource_head_words(text, text)`.execute(db);
    },
  };
}
