import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/** SQLite's facet values as small integers, and each document's values as a JSON array of them. */
const FACET_VALUE_CODES = 'resource_facet_value_codes';
const DOCUMENT_FACET_CODES = 'resource_search_facet_codes';
const TRIGGERS = ['resource_facet_codes_ai', 'resource_facet_codes_ad', 'resource_facet_codes_au'] as const;

/** A document's facet_keys ([facet, scope, value] triples) as a JSON table k, and its scope-'' keys' condition. */
const keysOf = (row: string) => sql.raw(`json_each(${row}.facet_keys) k`);
const UNSCOPED = sql.raw(`k.value ->> 1 = ''`);

/**
 * SQLite: the facets of a search or of catalog filters are counted over up to 2,001 matching documents. They were
 * read from resource_search.facet_keys: a wide row each (the rows hold the documents' text) of an 11 GB file at
 * 1M, and ~600 bytes of JSON triples each, UUIDs twice over (scoped and unscoped), parsed in Node.js: 3–16 ms to
 * read and 5.5 ms to parse a request. Here each document's unscoped values become small integers in a narrow
 * table keyed by its doc_id (~40 bytes a row), so the same count reads a few hundred pages in doc_id order, the
 * order FTS5 yields its matches, and parses arrays of integers; the values are named once per request from the
 * dictionary. The codes are the dictionary's rowids, assigned on a value's first use and never reused, kept by
 * triggers on resource_search in the same transaction as every write of a document (like the facet counts,
 * 0024). PostgreSQL has codes of its own in its vectors (0035) and is unchanged.
 */
export function documentFacetCodes({ dialect }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'sqlite') return;
      await sql`
        create table ${sql.table(FACET_VALUE_CODES)} (
          code integer primary key,
          facet text not null,
          value text not null,
          unique (facet, value)
        )`.execute(db);
      await sql`
        create table ${sql.table(DOCUMENT_FACET_CODES)} (
          doc_id integer primary key,
          codes text not null
        )`.execute(db);
      await sql`
        insert into ${sql.table(FACET_VALUE_CODES)} (facet, value)
        select distinct k.value ->> 0, k.value ->> 2 from resource_search s, ${keysOf('s')} where ${UNSCOPED}
        order by 1, 2`.execute(db);
      await sql`
        insert into ${sql.table(DOCUMENT_FACET_CODES)} (doc_id, codes)
        select s.doc_id, (${documentCodes('s')}) from resource_search s`.execute(db);
      await createFacetCodeTriggers(db);
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'sqlite') return;
      for (const trigger of TRIGGERS) await sql`drop trigger if exists ${sql.id(trigger)}`.execute(db);
      await sql`drop table ${sql.table(DOCUMENT_FACET_CODES)}`.execute(db);
      await sql`drop table ${sql.table(FACET_VALUE_CODES)}`.execute(db);
    },
  };
}

/** A document's codes as a JSON array (`[]` without unscoped keys), by joining its keys to the dictionary. */
function documentCodes(row: string) {
  return sql`select json_group_array(c.code) from ${keysOf(row)}
    join ${sql.table(FACET_VALUE_CODES)} c on c.facet = k.value ->> 0 and c.value = k.value ->> 2
    where ${UNSCOPED}`;
}

async function createFacetCodeTriggers(db: Kysely<unknown>): Promise<void> {
  const add = sql`
    insert into ${sql.table(FACET_VALUE_CODES)} (facet, value)
      select k.value ->> 0, k.value ->> 2 from ${keysOf('new')} where ${UNSCOPED} on conflict do nothing;
    insert into ${sql.table(DOCUMENT_FACET_CODES)} (doc_id, codes) values (new.doc_id, (${documentCodes('new')}));`;
  const remove = sql`delete from ${sql.table(DOCUMENT_FACET_CODES)} where doc_id = old.doc_id;`;
  const [onInsert, onDelete, onUpdate] = [sql.id(TRIGGERS[0]), sql.id(TRIGGERS[1]), sql.id(TRIGGERS[2])];
  await sql`create trigger ${onInsert} after insert on resource_search begin ${add} end`.execute(db);
  await sql`create trigger ${onDelete} after delete on resource_search begin ${remove} end`.execute(db);
  await sql`
    create trigger ${onUpdate} after update of doc_id, facet_keys on resource_search
    when old.facet_keys is not new.facet_keys or old.doc_id is not new.doc_id
    begin ${remove} ${add} end`.execute(db);
}
