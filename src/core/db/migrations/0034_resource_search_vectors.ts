import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';
import { addDocument } from './0030_document_facet_terms.js';
import { DOCUMENT_WITH_PREFIX_TERMS } from './0033_document_prefix_terms.js';
import { analyzeNewIndex } from './statistics.js';

/**
 * Hash partitions of resource_search_vectors. GIN builds the whole bitmap of a query's matches before anything
 * is counted, so a capped count of a common word costs its whole posting lists (at 1M, `epic`, in 893k
 * documents: 37 ms to count 10,001; `magic & ~castl`: 40 ms); the partitions are scanned one after the other
 * under the count's LIMIT, and a word common enough to fill it in the first ones never reaches the others (7.5
 * and 8 ms). Each partition adds to the planning of every statement that reads the table (~0.2 ms) and to the
 * work of a word just common enough to reach the cap (its matches are spread over all of them): 8 measured
 * better at 1M than 1 or 16.
 */
export const VECTOR_PARTITIONS = 8;

/**
 * The VECTOR_PARTITIONS hash partitions of a vectors table, `<table>_<remainder>`, each moving any value that is
 * toasted at all out of line (toast_tuple_target = 128), so that its rows stay narrow.
 */
export async function createVectorPartitions(db: Kysely<unknown>, table: string): Promise<void> {
  for (let remainder = 0; remainder < VECTOR_PARTITIONS; remainder += 1) {
    await sql`
      create table ${sql.table(`${table}_${remainder}`)} partition of ${sql.table(table)}
      for values with (modulus ${sql.lit(VECTOR_PARTITIONS)}, remainder ${sql.lit(remainder)})
      with (toast_tuple_target = 128)`.execute(db);
  }
}

/** The text columns a resource's vectors are computed from, in resource_document's argument order. */
const TEXT_COLUMNS = ['name_text', 'keywords_text', 'body_text', 'owner_text', 'facet_keys'] as const;

/**
 * PostgreSQL: a resource's searched vectors move out of resource_search into a table of their own,
 * resource_search_vectors (resource id, the name's words, the document), kept by triggers on resource_search.
 * Why: GIN has no index-only scans, so counting a search's matches visits the table row of each one (to see
 * that it is visible), and resource_search's rows are wide (the text columns inline: 1,304 MB at 1M, ~6 rows a
 * page): counting a common word to 10,001 read ~9,000 pages, 40 ms from shared buffers and 100–160 ms from the
 * page cache. These rows hold an id, the name's words and a pointer to the document (toast_tuple_target = 128
 * moves any document that is toasted at all, i.e. any row over ~2 KB, out of line; the name's words stay inline,
 * storage plain), ~120 bytes: the whole table stays in memory, and the same counts took 19–54 ms (median 28)
 * against 55–130 (median 77). The name's words come along (stripped: nothing asks for their positions) so that
 * the relevance tiers still intersect two GIN indexes of one table (search/resource-match.ts). The table is
 * hash-partitioned (VECTOR_PARTITIONS).
 * The documents are copied as they are (no recomputation); the dropped column's space in resource_search is
 * given back as its rows are rewritten (or at once by VACUUM FULL, docs/deploy.md). SQLite is unchanged: FTS5
 * counts from its own index.
 */
export function resourceSearchVectors({ dialect }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      const parameters = sql.raw(TEXT_COLUMNS.map((column) => `${column} text`).join(', '));
      await sql`
        create function resource_document(${parameters}) returns tsvector
        language sql immutable parallel safe as $$ select ${DOCUMENT_WITH_PREFIX_TERMS} $$`.execute(db);
      await sql`
        create function resource_name_words(name_text text) returns tsvector
        language sql immutable parallel safe as $$ select strip(to_tsvector('simple', name_text)) $$`.execute(
        db,
      );
      await sql`
        create table resource_search_vectors (
          resource_id text primary key references resource_search (resource_id) on delete cascade,
          name_words tsvector not null,
          document tsvector not null
        ) partition by hash (resource_id)`.execute(db);
      await createVectorPartitions(db, 'resource_search_vectors');
      // (Recurses to the partitions.)
      await sql`alter table resource_search_vectors alter column name_words set storage plain`.execute(db);
      await sql`
        insert into resource_search_vectors (resource_id, name_words, document)
        select resource_id, resource_name_words(name_text), document from resource_search`.execute(db);
      await sql`alter table resource_search drop column document`.execute(db);
      await sql`drop index resource_search_name_idx`.execute(db);
      await createVectorIndexes(db);
      await defineVectorsWrite(db, false);
      await sql`
        create trigger resource_search_vectors_ai after insert on resource_search
        for each row execute function resource_search_vectors_write()`.execute(db);
      // A document refreshed with the same text (most edits of a resource) computes nothing.
      const changed = sql.raw(
        TEXT_COLUMNS.map((column) => `old.${column} is distinct from new.${column}`).join(' or '),
      );
      await sql`
        create trigger resource_search_vectors_au after update of ${sql.raw(TEXT_COLUMNS.join(', '))}
        on resource_search for each row when (${changed})
        execute function resource_search_vectors_write()`.execute(db);
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`drop table resource_search_vectors`.execute(db);
      await sql`drop trigger resource_search_vectors_ai on resource_search`.execute(db);
      await sql`drop trigger resource_search_vectors_au on resource_search`.execute(db);
      await sql`drop function resource_search_vectors_write()`.execute(db);
      await sql`drop function resource_name_words(text)`.execute(db);
      await sql`drop function resource_document(text, text, text, text, text)`.execute(db);
      await addDocument(db, DOCUMENT_WITH_PREFIX_TERMS);
      await sql`create index resource_search_name_idx on resource_search
        using gin (to_tsvector('simple', name_text))`.execute(db);
    },
  };
}

/**
 * The trigger function that writes a resource_search row's vectors (`withFacetCodes`: and its facet codes,
 * migration 0035; `withHeadWords`: and its name's and keywords' words, migration 0043).
 */
export async function defineVectorsWrite(
  db: Kysely<unknown>,
  withFacetCodes: boolean,
  withHeadWords = false,
): Promise<void> {
  const row = sql.raw(TEXT_COLUMNS.map((column) => `new.${column}`).join(', '));
  const extra = [
    ...(withFacetCodes ? [['facet_codes', sql`resource_facet_codes(new.facet_keys)`] as const] : []),
    ...(withHeadWords
      ? [['head_words', sql`resource_head_words(new.name_text, new.keywords_text)`] as const]
      : []),
  ];
  const columns = sql.join(
    extra.map(([column]) => sql`, ${sql.raw(column)}`),
    sql``,
  );
  const values = sql.join(
    extra.map(([, value]) => sql`, ${value}`),
    sql``,
  );
  const updates = sql.join(
    extra.map(([column]) => sql`, ${sql.raw(column)} = excluded.${sql.raw(column)}`),
    sql``,
  );
  await sql`
    create or replace function resource_search_vectors_write() returns trigger language plpgsql as $$
    begin
      insert into resource_search_vectors (resource_id, name_words, document${columns})
      values (new.resource_id, resource_name_words(new.name_text), resource_document(${row})${values})
      on conflict (resource_id) do update
        set name_words = excluded.name_words, document = excluded.document${updates};
      return null;
    end $$`.execute(db);
}

/** The GIN indexes of the documents and of the names' words (the names they had on resource_search). */
export async function createVectorIndexes(db: Kysely<unknown>): Promise<void> {
  // A GIN index builds faster with memory to sort its entries in (search/rebuild.ts does the same).
  await sql`set local maintenance_work_mem = '512MB'`.execute(db);
  await sql`create index resource_search_document_idx on resource_search_vectors using gin (document)`.execute(
    db,
  );
  await sql`create index resource_search_name_idx on resource_search_vectors using gin (name_words)`.execute(
    db,
  );
  await analyzeNewIndex(db, 'postgres', 'resource_search_vectors', 'resource_search_document_idx');
}
