import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';
import { DOCUMENT_WITH_FACET_TERMS, DOCUMENT_WORDS, redefineDocument } from './0030_document_facet_terms.js';

/** The document as 0033 defines it: the weighted words with their starts, then the facet terms. */
export const DOCUMENT_WITH_PREFIX_TERMS = sql`with_prefix_terms(${DOCUMENT_WORDS}) || resource_facet_terms(facet_keys)`;

/**
 * PostgreSQL: each document also holds the 3- to 6-character starts of its words as terms of their own, `~epic`
 * for `epic1002` (search/match.ts tsPrefixTerm asks for them). The last word of a search is matched as a prefix
 * (it may still be being typed), and GIN answers `epic:*` by merging the posting lists of every word it
 * completes to before it intersects anything: at 1M, counting `perk & epic:*` to 10,001 built a bitmap of
 * 893,204 documents from 2,000+ words (203 of 245 ms); one term is one posting list that the intersection skips
 * through. The terms are plain ASCII words' (the query side asks for no others) and carry no position or
 * weight, as the facet terms (0030); `~` keeps them apart from every word (folded words are letters and digits).
 * SQLite's FTS5 has the same thing as its prefix indexes (0032). Every row is recomputed (a table rewrite).
 */
export function documentPrefixTerms({ dialect }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`
        create function with_prefix_terms(words tsvector) returns tsvector
        language sql immutable parallel safe as $$
          select words || array_to_tsvector(array(
            select '~' || left(word, n) from unnest(tsvector_to_array(words)) word, generate_series(3, 6) n
            where length(word) >= n and word ~ '^[a-z0-9]+$'))
        $$`.execute(db);
      await redefineDocument(db, DOCUMENT_WITH_PREFIX_TERMS);
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await redefineDocument(db, DOCUMENT_WITH_FACET_TERMS);
      await sql`drop function with_prefix_terms(tsvector)`.execute(db);
    },
  };
}
