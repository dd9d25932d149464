import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';
import { FTS_FACET_TERMS } from '../../../modules/search/resource-facet-keys.js';

const TEXT_COLUMNS = ['name_text', 'keywords_text', 'body_text', 'owner_text'] as const;

/**
 * The FTS5 table over resource_search (0024), with or without the facet terms column, with prefix indexes of the
 * lengths given (0032 adds 4, 5 and 6).
 */
export async function createFts(db: Kysely<unknown>, withTerms: boolean, prefixes = '2 3'): Promise<void> {
  const columns = withTerms ? [...TEXT_COLUMNS, 'facet_terms'] : [...TEXT_COLUMNS];
  const list = sql.raw(columns.join(', '));
  const values = (row: 'new' | 'old') => sql.raw(columns.map((column) => `${row}.${column}`).join(', '));
  await sql`
    create virtual table resource_search_fts using fts5(
      ${list},
      content = 'resource_search', content_rowid = 'doc_id',
      tokenize = 'unicode61 remove_diacritics 2', prefix = ${sql.lit(prefixes)}
    )`.execute(db);
  const remove = sql`insert into resource_search_fts(resource_search_fts, rowid, ${list})
    values ('delete', old.doc_id, ${values('old')});`;
  const add = sql`insert into resource_search_fts(rowid, ${list}) values (new.doc_id, ${values('new')});`;
  await sql`create trigger resource_search_ai after insert on resource_search begin ${add} end`.execute(db);
  await sql`create trigger resource_search_ad after delete on resource_search begin ${remove} end`.execute(
    db,
  );
  await sql`create trigger resource_search_au after update on resource_search begin ${remove} ${add} end`.execute(
    db,
  );
  await sql`insert into resource_search_fts(resource_search_fts) values ('rebuild')`.execute(db);
}

export async function dropFts(db: Kysely<unknown>): Promise<void> {
  for (const trigger of ['resource_search_ai', 'resource_search_ad', 'resource_search_au']) {
    await sql`drop trigger if exists ${sql.id(trigger)}`.execute(db);
  }
  await sql`drop table resource_search_fts`.execute(db);
}

/**
 * SQLite: each document's facet keys also become terms of its FTS5 entry, as PostgreSQL's became terms of its
 * tsvector in 0030, so that a search with a type or catalog filters is one FTS5 query intersecting the words with
 * the filter's terms (search/resource-facet-keys.ts ftsFacetTerms). Before, the search's matches or the filter's
 * link rows drove and each row was tested against the other: at 1M a common word with a common tag and a type
 * took 1–1.6 s. The terms are a virtual generated column of resource_search (FTS_FACET_TERMS), computed from
 * facet_keys whenever FTS5 is given or reads the row, so they can never drift from the keys. Each term starts
 * with a private-use character, which FTS5's unicode61 keeps in a token and search/text.ts never leaves in a
 * word, so no search word or prefix can reach one. The FTS5 table is recreated and rebuilt (its columns cannot
 * be altered). PostgreSQL is unchanged.
 */
export function ftsFacetTerms({ dialect }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'sqlite') return;
      await sql`alter table resource_search add column facet_terms text
        generated always as (${sql.raw(FTS_FACET_TERMS)}) virtual`.execute(db);
      await dropFts(db);
      await createFts(db, true);
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'sqlite') return;
      await dropFts(db);
      await sql`alter table resource_search drop column facet_terms`.execute(db);
      await createFts(db, false);
    },
  };
}
