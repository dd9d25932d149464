// The tables a resource rebuild empties and refills besides resource_search: those its triggers derive from it
// (DERIVED) and, on SQLite, its FTS5 indexes.
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import type { DB } from '../../core/db/schema.js';
import { NAME_WORDS_RECOUNT } from './name-words.js';

/**
 * Tables derived from resource_search by its triggers: emptied with it (the facet counts of an empty index are
 * none), and on PostgreSQL recomputed from the documents in one statement by an exclusive rebuild, which turns
 * every trigger of resource_search off while it loads. A new trigger-kept table belongs here too, with its
 * recomputation. Only the tables that exist are touched (the name words and the vectors are PostgreSQL's, from
 * migrations 0027 and 0034; migration 0024 rebuilds before they exist).
 */
export const DERIVED = {
  resource_facet_counts: sql`
    insert into resource_facet_counts (facet, scope, value, resource_count)
    select k ->> 0, k ->> 1, k ->> 2, count(*) from resource_search, json_array_elements(facet_keys::json) k
    group by 1, 2, 3`,
  resource_name_words: NAME_WORDS_RECOUNT,
  // The functions are migrations 0034's, 0035's and 0043's, which its triggers call too.
  resource_search_vectors: sql`
    insert into resource_search_vectors (resource_id, name_words, head_words, document, facet_codes)
    select resource_id, resource_name_words(name_text), resource_head_words(name_text, keywords_text),
      resource_document(name_text, keywords_text, body_text, owner_text, facet_keys), resource_facet_codes(facet_keys)
    from resource_search`,
} as const;
export const DERIVED_TABLES = Object.keys(DERIVED);

/**
 * SQLite: tables its triggers derive from resource_search row by row, emptied with it (also in an exclusive
 * rebuild, where these triggers stay on and refill them). The codes' dictionary (0037) is kept: a code, once
 * given, names its value for good.
 */
const SQLITE_DERIVED_TABLES = ['resource_facet_counts', 'resource_search_facet_codes'];

/** SQLite: the FTS5 indexes of resource_search (its main one; the fields relevance's tiers read, 0036). */
export const RESOURCE_FTS_TABLES = ['resource_search_fts', 'resource_fields_fts'];

/** SQLite: one of FTS5's commands on an external-content index ('delete-all', 'rebuild', 'optimize'). */
export const ftsCommand = (db: Kysely<DB> | Transaction<DB>, fts: string, command: string) =>
  sql`insert into ${sql.table(fts)}(${sql.ref(fts)}) values (${command})`.execute(db);

/**
 * Empties resource_search and what its triggers keep from it, in the caller's transaction. On SQLite the per-row delete
 * triggers would remove each document from FTS5 and the facet counts one by one (minutes at 1M); instead the
 * triggers are set aside, the tables emptied, FTS5 told 'delete-all', and the triggers put back as they were,
 * all or nothing. PostgreSQL's TRUNCATE fires no row triggers. keepFtsTriggersOff: the FTS5 triggers stay
 * dropped and their definitions are returned, for the caller to put back in the same transaction.
 */
export async function clearResourceSearch(
  trx: Transaction<DB>,
  dialect: DialectName,
  options: { keepFtsTriggersOff?: boolean } = {},
): Promise<string[]> {
  if (dialect === 'postgres') {
    const derived = await existingTables(trx, dialect, DERIVED_TABLES);
    await sql`truncate ${sql.join(['resource_search', ...derived].map((table) => sql.table(table)))}`.execute(
      trx,
    );
    return [];
  }
  const triggers = await sql<{ name: string; sql: string }>`
    select name, sql from sqlite_master where type = 'trigger' and tbl_name = 'resource_search'`.execute(trx);
  for (const trigger of triggers.rows) await sql`drop trigger ${sql.id(trigger.name)}`.execute(trx);
  await sql`delete from resource_search`.execute(trx);
  const ftsTables = await existingTables(trx, dialect, RESOURCE_FTS_TABLES);
  for (const fts of ftsTables) await ftsCommand(trx, fts, 'delete-all');
  for (const table of await existingTables(trx, dialect, SQLITE_DERIVED_TABLES)) {
    await sql`delete from ${sql.table(table)}`.execute(trx);
  }
  const setAside: string[] = [];
  for (const trigger of triggers.rows) {
    if (options.keepFtsTriggersOff === true && ftsTables.some((fts) => trigger.sql.includes(fts))) {
      setAside.push(trigger.sql);
    } else {
      await sql.raw(trigger.sql).execute(trx);
    }
  }
  return setAside;
}

export async function existingTables(
  db: Kysely<DB> | Transaction<DB>,
  dialect: DialectName,
  names: readonly string[],
): Promise<string[]> {
  const rows =
    dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)
      : await sql<{ name: string }>`
          select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(
          db,
        );
  const present = new Set(rows.rows.map((row) => row.name));
  return names.filter((name) => present.has(name));
}
