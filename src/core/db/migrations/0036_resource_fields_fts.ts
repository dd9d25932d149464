import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/** The columns of resource_fields_fts, all of resource_search (facet_terms is its generated column, 0031). */
const COLUMNS = ['name_text', 'keywords_text', 'facet_terms'] as const;

/**
 * SQLite: a second FTS5 index over resource_search, of the name, the keywords and the facet terms alone, with
 * `detail = column` (each word's documents and the columns it is in, no positions). Relevance's tiers ask where
 * a search's words are (every word in the name; all but one, that one in the keywords) and the main index
 * answers a column filter by decoding the positions of every document of each word: at 1M `name_text : ("trees"
 * "build" "tiny"*)` cost 76 ms and the pairs of those words 140–200 ms; here 10 and 9–45 ms (no phrase can be
 * asked of it; the tiers ask none). Kept by its own triggers, which fire only when one of its columns changes.
 * Built in 32 s at 1M (899k documents). PostgreSQL is unchanged: its name words have their own GIN index (0028).
 */
export function resourceFieldsFts({ dialect }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'sqlite') return;
      const list = sql.raw(COLUMNS.join(', '));
      const values = (row: 'new' | 'old') => sql.raw(COLUMNS.map((column) => `${row}.${column}`).join(', '));
      await sql`
        create virtual table resource_fields_fts using fts5(
          ${list},
          content = 'resource_search', content_rowid = 'doc_id', detail = 'column',
          tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4 5 6'
        )`.execute(db);
      const remove = sql`insert into resource_fields_fts(resource_fields_fts, rowid, ${list})
        values ('delete', old.doc_id, ${values('old')});`;
      const add = sql`insert into resource_fields_fts(rowid, ${list}) values (new.doc_id, ${values('new')});`;
      await sql`create trigger resource_fields_ai after insert on resource_search begin ${add} end`.execute(
        db,
      );
      await sql`create trigger resource_fields_ad after delete on resource_search begin ${remove} end`.execute(
        db,
      );
      // facet_terms is generated from facet_keys.
      await sql`create trigger resource_fields_au after update of doc_id, name_text, keywords_text, facet_keys
        on resource_search begin ${remove} ${add} end`.execute(db);
      await sql`insert into resource_fields_fts(resource_fields_fts) values ('rebuild')`.execute(db);
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'sqlite') return;
      for (const trigger of ['resource_fields_ai', 'resource_fields_ad', 'resource_fields_au']) {
        await sql`drop trigger if exists ${sql.id(trigger)}`.execute(db);
      }
      await sql`drop table resource_fields_fts`.execute(db);
    },
  };
}
