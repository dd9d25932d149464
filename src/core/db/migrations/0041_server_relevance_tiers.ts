import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';
import { analyzeNewIndex } from './statistics.js';

// The name's and the keywords' parts of the server's document (0040), weights included: a phrase is matched
// within one weight, so a query's phrases run within one column here too (search/match.ts tsQuery).
const NAME = sql`setweight(to_tsvector('simple', name_text), 'A')`;
const KEYWORDS = sql`setweight(to_tsvector('simple', keywords_text), 'B')`;

/**
 * Indexes for the servers' relevance tiers (search/directory-match.ts), which servers/server-relevance.repo.ts
 * counts and pages one at a time: the exact name (a b-tree of name_text, both dialects) and, on PostgreSQL, the
 * words of the name (`name_words`, tier 1) and of the name and keywords (`head_words`, tier 2) as tsvectors of
 * their own with GIN indexes. Why: a GIN index cannot restrict a match to a weight, so `epic:A` against the
 * document rechecks every document holding `epic` anywhere, each read out of line (0039: ~8 buffers); ordering
 * every match by its tier that way took 152 / 546 / 606–727 ms (p50 / p90 / p99) at 1M resources (180k servers).
 * Both vectors are the document's A and B parts, computed and concatenated the same way, so the query's words
 * without a weight on them answer what the weight-restricted ones answer on the document, from the index alone
 * (only phrases, which name weights, are rechecked). The name's words stay in the row (storage plain: a few words), the head's move out of line with the
 * other long values (0039). SQLite's FTS5 index restricts a match to columns itself.
 */
export function serverRelevanceTiers({ dialect }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await sql`create index server_search_name_text_idx on server_search (name_text)`.execute(db);
      await analyzeNewIndex(db, dialect, 'server_search', 'server_search_name_text_idx');
      if (dialect !== 'postgres') return;
      await sql`alter table server_search
        add column name_words tsvector generated always as (${NAME}) stored,
        add column head_words tsvector generated always as (${NAME} || ${KEYWORDS}) stored,
        alter column name_words set storage plain`.execute(db);
      // A GIN index builds faster with memory to sort its entries in (search/rebuild.ts does the same).
      await sql`set local maintenance_work_mem = '512MB'`.execute(db);
      await sql`create index server_search_name_words_idx on server_search using gin (name_words)`.execute(
        db,
      );
      await sql`create index server_search_head_words_idx on server_search using gin (head_words)`.execute(
        db,
      );
      await analyzeNewIndex(db, dialect, 'server_search', 'server_search_head_words_idx');
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await sql`drop index server_search_name_text_idx`.execute(db);
      if (dialect !== 'postgres') return;
      await sql`alter table server_search drop column name_words, drop column head_words`.execute(db);
    },
  };
}
