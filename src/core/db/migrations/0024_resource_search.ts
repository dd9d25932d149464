import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';
import type { MigrationContext } from '../migrator.js';
import { rebuildResourceSearch } from '../../../modules/search/rebuild.js';
import { installTrigram } from '../../../modules/search/resource-trigram.js';

/**
 * Full-text search of resources (issue 17): one document per APPROVED resource (schema/search.ts).
 * SQLite: an external-content FTS5 table over resource_search, kept in step by triggers (so every write of a
 * document, including cascaded deletes, moves the index in the same transaction). PostgreSQL: a stored, weighted
 * tsvector generated from the same columns, under a GIN index. The text is folded and split by the application
 * (modules/search/text.ts), so both dialects index exactly the same words. Existing resources are indexed here.
 * Also: resource_facet_counts (APPROVED resources per type, tag, category and game version, moved by triggers on
 * resource_search from each document's facet_keys) and, on PostgreSQL where pg_trgm can be had, a trigram index
 * on names for typo tolerance (modules/search/resource-trigram.ts).
 */
export function resourceSearch({ dialect }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'sqlite') {
        await sql`
          create table resource_search (
            doc_id integer primary key,
            resource_id text not null unique references resources(id) on delete cascade,
            name_text text not null,
            keywords_text text not null,
            owner_text text not null,
            facet_keys text not null default '[]',
            -- Last: relevance reads the short columns, and a long body would make SQLite walk its overflow pages
            -- to reach any column stored after it.
            body_text text not null
          )`.execute(db);
        // doc_id → resource_id without reading the wide rows: a search's matches come out of FTS5 as doc_ids
        // (measured at 100k: 3× faster than through the table for 30,000 matches).
        await sql`create index resource_search_doc_idx on resource_search (doc_id, resource_id)`.execute(db);
        // prefix: the type-ahead's last word is a prefix query; indexes of 2- and 3-letter prefixes make short
        // ones a lookup instead of a scan of the term list.
        await sql`
          create virtual table resource_search_fts using fts5(
            name_text, keywords_text, body_text, owner_text,
            content = 'resource_search', content_rowid = 'doc_id',
            tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
          )`.execute(db);
        await sql`
          create trigger resource_search_ai after insert on resource_search begin
            insert into resource_search_fts(rowid, name_text, keywords_text, body_text, owner_text)
            values (new.doc_id, new.name_text, new.keywords_text, new.body_text, new.owner_text);
          end`.execute(db);
        await sql`
          create trigger resource_search_ad after delete on resource_search begin
            insert into resource_search_fts(resource_search_fts, rowid, name_text, keywords_text, body_text, owner_text)
            values ('delete', old.doc_id, old.name_text, old.keywords_text, old.body_text, old.owner_text);
          end`.execute(db);
        await sql`
          create trigger resource_search_au after update on resource_search begin
            insert into resource_search_fts(resource_search_fts, rowid, name_text, keywords_text, body_text, owner_text)
            values ('delete', old.doc_id, old.name_text, old.keywords_text, old.body_text, old.owner_text);
            insert into resource_search_fts(rowid, name_text, keywords_text, body_text, owner_text)
            values (new.doc_id, new.name_text, new.keywords_text, new.body_text, new.owner_text);
          end`.execute(db);
        await createFacetCounts(db);
        const keys = (row: 'new' | 'old') =>
          sql.raw(`select json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]')
            from json_each(${row}.facet_keys)`);
        const add = sql`insert into resource_facet_counts(facet, scope, value, resource_count)
            select k.*, 1 from (${keys('new')}) k where true
            on conflict(facet, scope, value) do update set resource_count = resource_count + 1;`;
        const remove = sql`update resource_facet_counts set resource_count = resource_count - 1
            where (facet, scope, value) in (${keys('old')});`;
        await sql`create trigger resource_search_facets_ai after insert on resource_search begin ${add} end`.execute(
          db,
        );
        await sql`create trigger resource_search_facets_ad after delete on resource_search begin ${remove} end`.execute(
          db,
        );
        await sql`
          create trigger resource_search_facets_au after update of facet_keys on resource_search
          when old.facet_keys is not new.facet_keys begin ${remove} ${add} end`.execute(db);
      } else {
        await sql`
          create table resource_search (
            doc_id bigint generated by default as identity,
            resource_id text primary key references resources(id) on delete cascade,
            name_text text not null,
            keywords_text text not null,
            body_text text not null,
            owner_text text not null,
            facet_keys text not null default '[]',
            document tsvector generated always as (
              setweight(to_tsvector('simple', name_text), 'A') ||
              setweight(to_tsvector('simple', keywords_text), 'B') ||
              setweight(to_tsvector('simple', body_text), 'C') ||
              setweight(to_tsvector('simple', owner_text), 'D')
            ) stored
          )`.execute(db);
        await sql`create index resource_search_document_idx on resource_search using gin (document)`.execute(
          db,
        );
        await createFacetCounts(db);
        await sql`
          create function resource_search_facets() returns trigger language plpgsql as $$
          begin
            if tg_op <> 'INSERT' then
              update resource_facet_counts c set resource_count = c.resource_count - 1
              from json_array_elements(old.facet_keys::json) k
              where c.facet = k->>0 and c.scope = k->>1 and c.value = k->>2;
            end if;
            if tg_op <> 'DELETE' then
              insert into resource_facet_counts as c (facet, scope, value, resource_count)
              select k->>0, k->>1, k->>2, 1 from json_array_elements(new.facet_keys::json) k
              on conflict (facet, scope, value) do update set resource_count = c.resource_count + 1;
            end if;
            return null;
          end $$`.execute(db);
        await sql`
          create trigger resource_search_facets_aid after insert or delete on resource_search
          for each row execute function resource_search_facets()`.execute(db);
        await sql`
          create trigger resource_search_facets_au after update of facet_keys on resource_search
          for each row when (old.facet_keys is distinct from new.facet_keys)
          execute function resource_search_facets()`.execute(db);
        // Typo tolerance (modules/search/resource-trigram.ts): trigram similarity of names, where pg_trgm can be
        // had; without it search simply has no typo tolerance.
        const trigram = await installTrigram(db);
        if (trigram !== null) {
          await sql`create index resource_search_name_trgm_idx on resource_search
            using gin (name_text ${sql.id(trigram, 'gin_trgm_ops')})`.execute(db);
        }
      }
      // Before the server starts: nothing else writes, so the fastest (single-transaction) rebuild applies.
      await rebuildResourceSearch(db as unknown as Kysely<DB>, dialect, undefined, { exclusive: true });
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'sqlite') await sql`drop table if exists resource_search_fts`.execute(db);
      await db.schema.dropTable('resource_search').execute();
      if (dialect === 'postgres') await sql`drop function if exists resource_search_facets()`.execute(db);
      await db.schema.dropTable('resource_facet_counts').ifExists().execute();
    },
  };
}

/**
 * APPROVED resources per facet value, moved by triggers on resource_search (a document exists exactly while its
 * resource is APPROVED), so every path that writes or removes documents, bulk ones included, keeps the counts.
 * They answer single-filter totals and unfiltered facets without counting rows.
 */
async function createFacetCounts(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table resource_facet_counts (
      facet text not null,
      scope text not null,
      value text not null,
      resource_count integer not null,
      primary key (facet, scope, value)
    )`.execute(db);
  await sql`create index resource_facet_counts_top_idx
    on resource_facet_counts (facet, scope, resource_count)`.execute(db);
}
