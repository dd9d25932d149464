import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migrator.js';

/** The columns that stay in the row whatever its size: the key every match is handed on by, and the name. */
const INLINE_COLUMNS = ['server_id', 'name_text'] as const;

/**
 * PostgreSQL: server_search keeps only its id, name and short values in each row and stores the long ones (the
 * document, the description's text, the keywords) out of line, so that a row is ~200 bytes instead of 1.5–4 KB
 * (the heap at 1M resources, 180k servers: 257 → 32 MB), and its existing rows are rewritten that way.
 * Why: GIN has no index-only scans, so counting a search's matches (every search counts them, to the cap)
 * visits the table row of each one to see that it is visible; with the text inline (~5 rows a page) a count to
 * 10,001 of a word in 17% of the servers read 6,900 pages (18–82 ms), against 940 (7–18 ms) with narrow rows.
 * PostgreSQL moves a row's values out of line only when the row is over TOAST_TUPLE_THRESHOLD (a quarter of a
 * page, ~2 KB), and then until it fits toast_tuple_target (here the minimum, 128 bytes). Half of the documents
 * are under 2 KB with their text, and those rows stayed wide under the target alone (125 MB). So each row
 * carries a generated filler of a quarter page of spaces: every row is then over the threshold, the filler is
 * compressed to ~30 bytes (it is the biggest value, so it is compressed first) and the long values move out.
 * The id and the name are kept in the row (storage plain): 0038 found the resources' ids moved out the same way
 * (~4 buffers per id read), and a search hands on the ids it matched and its relevance compares the name. The
 * resources' vectors have a narrow table of their own (0034), whose documents are nearly all over 2 KB; a
 * server's document is read by the same row that holds its text, so no second table and no trigger are needed.
 * Adding the column rewrites every row under the new settings (25 s at 1M). SQLite is unchanged: FTS5 counts
 * from its own index.
 */
export function serverDocumentsNarrow({ dialect }: MigrationContext) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`alter table server_search set (toast_tuple_target = 128)`.execute(db);
      for (const column of INLINE_COLUMNS) {
        await sql`alter table server_search alter column ${sql.ref(column)} set storage plain`.execute(db);
      }
      // The threshold is a quarter of the page size this PostgreSQL was built with (8 KB by default).
      const { rows } = await sql<{ size: string }>`select current_setting('block_size') as size`.execute(db);
      const filler = Math.ceil(Number(rows[0]!.size) / 4);
      await sql`alter table server_search add column toast_filler text
        generated always as (repeat(' ', ${sql.lit(filler)})) stored`.execute(db);
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`alter table server_search drop column toast_filler`.execute(db);
      await sql`alter table server_search reset (toast_tuple_target)`.execute(db);
      for (const column of INLINE_COLUMNS) {
        await sql`alter table server_search alter column ${sql.ref(column)} set storage extended`.execute(db);
      }
    },
  };
}
