import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';
import { createVectorPartitions } from './0034_resource_search_vectors.js';
import { analyzeNewIndex } from './statistics.js';

/** The columns a server's document is generated from (0040): a change to any of them may change it. */
const SOURCE_COLUMNS = ['name_text', 'keywords_text', 'body_text', 'owner_text', 'facet_terms'] as const;

/**
 * PostgreSQL: each server's document (server_search.document, 0040) is copied by triggers into
 * server_search_vectors (server id, document), hash-partitioned as the resources' vectors are (0034), which the
 * counts and facets of a search's matches read (search/directory-match.ts DocumentIndex.vectors,
 * servers/server-directory.repo.ts matchedDocuments). Why: GIN builds the
 * bitmap of every match before the first row is visited, so a count to 10,001 of a common word paid for all of
 * its matches (`trees:*` in 171k of 180k servers at 1M resources: 12 ms of 15 in the index scan); over the
 * partitions, one after the other under the count's LIMIT, a common word fills it in the first ones. 200 counts
 * of the `servers search` kind at 1M: p50 / p90 10.7–11.6 / 15–18 ms → 5.4–5.9 / 8–9 ms. server_search itself
 * stays one table: partitioned whole, its other readers (an APPROVED check by server id per link of a tag, for
 * the facets) merged eight indexes where they read one, 9 → 19 ms. The documents are copied, not computed again
 * (an AFTER trigger sees the generated column); the rows keep the id inline and the document out of line as
 * soon as it is toasted at all (toast_tuple_target = 128), 15 MB at 1M. SQLite is unchanged: FTS5 counts from
 * its own index.
 */
export function serverSearchVectors({ dialect }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`
        create table server_search_vectors (
          server_id text primary key references server_search (server_id) on delete cascade,
          document tsvector not null
        ) partition by hash (server_id)`.execute(db);
      await createVectorPartitions(db, 'server_search_vectors');
      // (Recurses to the partitions.)
      await sql`alter table server_search_vectors alter column server_id set storage plain`.execute(db);
      await sql`
        insert into server_search_vectors (server_id, document)
        select server_id, document from server_search`.execute(db);
      // A GIN index builds faster with memory to sort its entries in (search/rebuild.ts does the same).
      await sql`set local maintenance_work_mem = '512MB'`.execute(db);
      await sql`create index server_search_vectors_document_idx on server_search_vectors
        using gin (document)`.execute(db);
      await analyzeNewIndex(db, dialect, 'server_search_vectors', 'server_search_vectors_document_idx');
      await sql`
        create function server_search_vectors_write() returns trigger language plpgsql as $$
        begin
          insert into server_search_vectors (server_id, document) values (new.server_id, new.document)
          on conflict (server_id) do update set document = excluded.document;
          return null;
        end $$`.execute(db);
      await sql`
        create trigger server_search_vectors_ai after insert on server_search
        for each row execute function server_search_vectors_write()`.execute(db);
      // A document rewritten with the same text (most edits of a server) copies nothing.
      await sql`
        create trigger server_search_vectors_au after update of ${sql.raw(SOURCE_COLUMNS.join(', '))}
        on server_search for each row when (old.document is distinct from new.document)
        execute function server_search_vectors_write()`.execute(db);
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`drop trigger server_search_vectors_ai on server_search`.execute(db);
      await sql`drop trigger server_search_vectors_au on server_search`.execute(db);
      await sql`drop function server_search_vectors_write()`.execute(db);
      await sql`drop table server_search_vectors`.execute(db);
    },
  };
}
