import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';
import { createVectorIndexes, defineVectorsWrite } from './0034_resource_search_vectors.js';

/**
 * PostgreSQL: each resource's facet values (its scope-'' facet keys: type, tags, categories, game versions) as
 * 64-bit codes in its resource_search_vectors row, so that the facets of a search or of catalog filters are
 * counted from the rows the full-text index already visits. Before, they were read from resource_search's
 * facet_keys by primary key: ~2,000 random pages of a 1.3 GB table and 1.2 MB of JSON a request (facets of a tag
 * at 1M: 18–70 ms for that read alone; from the codes, ~10 ms counted and named in one statement).
 * A code is `hashtextextended(facet || '/' || value, 0)`, the hash PostgreSQL keeps stable for hash partitioning:
 * no dictionary to keep, and a value is named again by hashing the catalogs' (small) id lists. Two values of the
 * same catalogs colliding in 64 bits is not a practical concern (~10⁻¹¹ for 20,000 values).
 * Storage plain keeps the codes inline (~75 bytes a row at 1M: the vectors' heap 102 → 149 MB).
 * The existing rows are filled with the GIN indexes set aside (updated in place with them, 899k rows took
 * 7 min; without, ~1.5 min and the indexes' build). SQLite is unchanged: FTS5's rows are read by rowid.
 */
export function resourceFacetCodes({ dialect }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`
        create function resource_facet_code(facet text, value text) returns int8
        language sql immutable parallel safe as $$ select hashtextextended(facet || '/' || value, 0) $$`.execute(
        db,
      );
      await sql`
        create function resource_facet_codes(facet_keys text) returns int8[]
        language sql immutable parallel safe as $$
          select coalesce(array_agg(resource_facet_code(k ->> 0, k ->> 2)), '{}')
          from json_array_elements(coalesce(facet_keys, '[]')::json) k where k ->> 1 = '' $$`.execute(db);
      await sql`alter table resource_search_vectors add column facet_codes int8[] not null default '{}'`.execute(
        db,
      );
      await sql`alter table resource_search_vectors alter column facet_codes set storage plain`.execute(db);
      await sql`drop index resource_search_document_idx`.execute(db);
      await sql`drop index resource_search_name_idx`.execute(db);
      await sql`
        update resource_search_vectors v set facet_codes = resource_facet_codes(s.facet_keys)
        from resource_search s where s.resource_id = v.resource_id`.execute(db);
      await createVectorIndexes(db);
      await defineVectorsWrite(db, true);
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await defineVectorsWrite(db, false);
      await sql`alter table resource_search_vectors drop column facet_codes`.execute(db);
      await sql`drop function resource_facet_codes(text)`.execute(db);
      await sql`drop function resource_facet_code(text, text)`.execute(db);
    },
  };
}
