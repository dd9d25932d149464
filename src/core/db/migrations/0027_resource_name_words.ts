import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';
import { installTrigram } from '../../../modules/search/resource-trigram.js';
import { NAME_WORDS_RECOUNT } from '../../../modules/search/name-words.js';

/**
 * PostgreSQL typo tolerance from a dictionary of the words of APPROVED resources' names (issue 17; see
 * modules/search/name-words.ts). The trigram index on every document's name (0024) made a misspelt search compare
 * the search with each name sharing trigrams with it: 2.4 s at 1M. The words of the names are a few per cent of
 * that; a misspelt word is replaced by its nearest word and searched as usual. Kept by a trigger on
 * resource_search (every path that writes documents keeps it, as the facet counts are); counts, not a set, so a
 * word no name holds any more stops being offered. Collation C: its primary key then also answers `LIKE 'abc%'`
 * (is a word typed so far the start of a name word?). SQLite has no typo tolerance and no dictionary.
 */
export function resourceNameWords({ dialect }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`
        create table resource_name_words (
          word text collate "C" primary key,
          resource_count integer not null
        )`.execute(db);
      // One statement, its words in order: concurrent writes lock the word rows they share in the same order (no
      // deadlock), and a rename moves only the words that changed.
      await sql`
        create function resource_name_words_keep() returns trigger language plpgsql as $$
        begin
          insert into resource_name_words as w (word, resource_count)
          select word, sum(delta) from (
            select distinct unnest(string_to_array(old.name_text, ' ')) as word, -1 as delta
            where tg_op <> 'INSERT'
            union all
            select distinct unnest(string_to_array(new.name_text, ' ')), 1
            where tg_op <> 'DELETE'
          ) d
          group by word having sum(delta) <> 0
          order by word
          on conflict (word) do update set resource_count = w.resource_count + excluded.resource_count;
          return null;
        end $$`.execute(db);
      await sql`
        create trigger resource_name_words_aid after insert or delete on resource_search
        for each row execute function resource_name_words_keep()`.execute(db);
      await sql`
        create trigger resource_name_words_au after update of name_text on resource_search
        for each row when (old.name_text is distinct from new.name_text)
        execute function resource_name_words_keep()`.execute(db);
      await NAME_WORDS_RECOUNT.execute(db);
      await sql`drop index if exists resource_search_name_trgm_idx`.execute(db);
      const trigram = await installTrigram(db);
      if (trigram !== null) {
        await sql`create index resource_name_words_trgm_idx on resource_name_words
          using gin (word ${sql.id(trigram, 'gin_trgm_ops')})`.execute(db);
      }
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`drop table if exists resource_name_words`.execute(db);
      await sql`drop function if exists resource_name_words_keep() cascade`.execute(db);
    },
  };
}
