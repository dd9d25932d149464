import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';
import { createFts, dropFts } from './0031_fts_facet_terms.js';

/**
 * SQLite: prefix indexes of 4, 5 and 6 characters besides 2 and 3. The last word of a search is matched as a
 * prefix (it may still be being typed), and FTS5 answers a prefix of a length it has no index for by merging the
 * document lists of every word it completes to before it intersects anything: `"perk" "epic"*` at 1M read the
 * 893,204 documents of `epic…` (188–282 ms to count), with a prefix index 16–27 ms, as fast as the whole word.
 * The FTS5 index grows by about 70% (1.7 → 2.9 GB at 1M) and a document's update costs ~0.3 ms more; longer
 * prefixes have few completions and are left to the merge. The table is recreated and rebuilt (FTS5 options
 * cannot be altered): 574 s at 1M on two cores, with other load beside it. PostgreSQL is unchanged.
 */
export function ftsLongerPrefixes({ dialect }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'sqlite') return;
      await dropFts(db);
      await createFts(db, true, '2 3 4 5 6');
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'sqlite') return;
      await dropFts(db);
      await createFts(db, true);
    },
  };
}
