import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';
import { analyzeNewIndex } from './statistics.js';

/**
 * SQLite: the search documents' names by doc id, in an index of their own, for the relevance tiers that test
 * the names of documents they already have the ids of (search/resource-match.ts matchingDocuments: any word of
 * the search in the name, among the whole search's listed documents; two of its words, or every one, when the
 * index was read for a cut prefix). The documents' rows hold the long description too (1.8 KB on average at
 * 1M): a lookup there reads a page of the whole table per document; this index is 24 MB at 1M and its pages
 * hold ~150 names (`pirate iron backpacks`, 9,126 listed documents: 25.6 → 14.1 ms). The same by resource id
 * (53 MB at 1M) for the walks of a sort index that test each row's name (MatchPlan 'scan' of the top tier: a
 * page of `deserts` by relevance walked 5,452 rows, 47 → 22 ms). PostgreSQL reads those tiers from the names'
 * own GIN-indexed vectors (0028, 0034) and has no use for them.
 */
export function resourceSearchNames({ dialect }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'sqlite') return;
      await sql`create index resource_search_doc_name_idx on resource_search (doc_id, name_text)`.execute(db);
      await analyzeNewIndex(db, dialect, 'resource_search', 'resource_search_doc_name_idx');
      await sql`create index resource_search_resource_name_idx on resource_search (resource_id, name_text)`.execute(
        db,
      );
      await analyzeNewIndex(db, dialect, 'resource_search', 'resource_search_resource_name_idx');
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'sqlite') return;
      await sql`drop index resource_search_doc_name_idx`.execute(db);
      await sql`drop index resource_search_resource_name_idx`.execute(db);
    },
  };
}
