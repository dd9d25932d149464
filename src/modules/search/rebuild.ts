// Rebuilding the search indexes from the tables they are derived from: by migrations that create or change a
// document format, and by operators (`cli search rebuild`) after restoring or repairing data by hand.
//
// A rebuild clears the index and loads it again in batches of BATCH resources, each in its own transaction that
// reads the resources and writes their documents, so the server keeps running (search answers from a partial
// index until the load ends). Writes made meanwhile are never lost:
// - a write's own refresh (resource-documents.ts) moves the document in the write's transaction, before or after
//   the batch that covers it, and each batch reads the resources as they are when it writes;
// - SQLite runs one write transaction at a time, so a batch never sees half of a write;
// - PostgreSQL batches first lock the batch's resource rows and their owners' rows FOR SHARE: a write in
//   progress on one of them finishes before the batch reads it, and a write that comes later waits for the batch
//   and then refreshes the document itself.
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import type { DB } from '../../core/db/schema.js';
import { resourceDocument, selectResourceSources, writeResourceDocuments } from './resource-documents.js';
import { rebuildServerSearch } from './server-documents.js';
import { rebuildTeamSearch } from './team-documents.js';
import { rebuildUserSearch } from './user-documents.js';

export interface RebuildProgress {
  index: string;
  done: number;
  total: number;
}

export type OnProgress = (progress: RebuildProgress) => void;

/** Resources per transaction: a SQLite write lock held for well under a second (measured: ~100 ms). */
const BATCH = 1_000;

/**
 * Tables derived from resource_search by its triggers: emptied with it (the facet counts of an empty index are
 * none). A new trigger-kept table belongs here too.
 */
const DERIVED_TABLES = ['resource_facet_counts'] as const;

/**
 * Empties resource_search and what its triggers keep from it, in the caller's transaction. On SQLite the per-row delete
 * triggers would remove each document from FTS5 and the facet counts one by one (minutes at 1M); instead the
 * triggers are set aside, the tables emptied, FTS5 told 'delete-all', and the triggers put back as they were,
 * all or nothing. PostgreSQL's TRUNCATE fires no row triggers. keepFtsTriggersOff: the FTS5 triggers stay
 * dropped and their definitions are returned, for the caller to put back in the same transaction.
 */
async function clearResourceSearch(
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
  await sql`insert into resource_search_fts(resource_search_fts) values ('delete-all')`.execute(trx);
  for (const table of await existingTables(trx, dialect, DERIVED_TABLES)) {
    await sql`delete from ${sql.table(table)}`.execute(trx);
  }
  const setAside: string[] = [];
  for (const trigger of triggers.rows) {
    if (options.keepFtsTriggersOff === true && trigger.sql.includes('resource_search_fts')) {
      setAside.push(trigger.sql);
    } else {
      await sql.raw(trigger.sql).execute(trx);
    }
  }
  return setAside;
}

async function existingTables(
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

/** The next BATCH resources after `after` (any status), by id: their sources, read in the batch's transaction. */
async function readBatch(trx: Transaction<DB>, dialect: DialectName, after: string) {
  // Status is filtered here, not in SQL: given `status = ?` SQLite walks the status index and sorts every
  // APPROVED resource for each batch (0.7 s a batch at 100k, quadratic in all) instead of reading a key range.
  if (dialect === 'sqlite') {
    return selectResourceSources(trx)
      .where('resources.id', '>', after)
      .orderBy('resources.id')
      .limit(BATCH)
      .execute();
  }
  const last = await lockBatch(trx, after);
  if (last === undefined) return [];
  return selectResourceSources(trx)
    .where('resources.id', '>', after)
    .where('resources.id', '<=', last)
    .orderBy('resources.id')
    .execute();
}

/**
 * PostgreSQL: holds the batch's resource rows and their owners' rows against change until the batch commits
 * (in id order, the order catalog refreshes update them in). Returns the batch's last id.
 */
async function lockBatch(trx: Transaction<DB>, after: string): Promise<string | undefined> {
  const { rows } = await sql<{ id: string; owner_type: string; owner_id: string }>`
    select id, owner_type, owner_id from resources where id > ${after} order by id limit ${BATCH}
    for share`.execute(trx);
  if (rows.length === 0) return undefined;
  const owners = (type: string) => [
    ...new Set(rows.filter((row) => row.owner_type === type).map((row) => row.owner_id)),
  ];
  const users = owners('USER');
  const teams = owners('TEAM');
  if (users.length > 0)
    await sql`select id from users where id = any(${users}) order by id for share`.execute(trx);
  if (teams.length > 0)
    await sql`select id from teams where id = any(${teams}) order by id for share`.execute(trx);
  return rows.at(-1)!.id;
}

export interface RebuildOptions {
  /**
   * Nothing else writes meanwhile (a migration before the server starts, a bulk seed, an operator's maintenance
   * window). On SQLite the whole rebuild is then one transaction (writers wait for it; a crash rolls it all back)
   * that loads the documents with the FTS5 triggers set aside and builds the full-text index once at the end
   * (FTS5 'rebuild'): measured 13 s against 22 s of CPU per 90k documents for the writes. PostgreSQL: no change.
   */
  exclusive?: boolean;
}

type Work<T> = (trx: Transaction<DB>) => Promise<T>;

/** A transaction of its own, or the caller's (PostgreSQL migrations run in one). */
const inTransaction = <T>(db: Kysely<DB>, work: Work<T>): Promise<T> =>
  db.isTransaction ? work(db as Transaction<DB>) : db.transaction().execute(work);

/** Every resource document, rewritten from the resources. */
export async function rebuildResourceSearch(
  db: Kysely<DB>,
  dialect: DialectName,
  onProgress?: OnProgress,
  options: RebuildOptions = {},
): Promise<{ documents: number }> {
  const totalRow = await db
    .selectFrom('resources')
    .where('status', '=', 'APPROVED')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  const total = Number(totalRow.count);
  if (options.exclusive === true && dialect === 'sqlite') {
    const documents = await inTransaction(db, async (trx) => {
      const ftsTriggers = await clearResourceSearch(trx, dialect, { keepFtsTriggersOff: true });
      const loaded = await loadResourceSearch((work) => work(trx), dialect, total, onProgress);
      await sql`insert into resource_search_fts(resource_search_fts) values ('rebuild')`.execute(trx);
      for (const definition of ftsTriggers) await sql.raw(definition).execute(trx);
      return loaded;
    });
    return { documents };
  }
  await inTransaction(db, (trx) => clearResourceSearch(trx, dialect));
  const documents = await loadResourceSearch((work) => inTransaction(db, work), dialect, total, onProgress);
  await finishResourceSearch(db, dialect);
  return { documents };
}

/** Writes the documents of every APPROVED resource, BATCH resources per `run` (a transaction of its own, or not). */
async function loadResourceSearch(
  run: <T>(work: Work<T>) => Promise<T>,
  dialect: DialectName,
  total: number,
  onProgress?: OnProgress,
): Promise<number> {
  let done = 0;
  let after = '';
  for (;;) {
    const batch = await run(async (trx) => {
      const sources = await readBatch(trx, dialect, after);
      if (sources.length === 0) return undefined;
      const approved = sources.filter((source) => source.status === 'APPROVED');
      await writeResourceDocuments(trx, dialect, approved.map(resourceDocument));
      return { last: sources.at(-1)!.id, written: approved.length };
    });
    if (batch === undefined) break;
    after = batch.last;
    done += batch.written;
    // Approvals during the rebuild can take it past the count taken at the start.
    onProgress?.({ index: 'resources', done, total: Math.max(total, done) });
  }
  if (done === 0) onProgress?.({ index: 'resources', done, total: 0 });
  return done;
}

/** After a bulk load: FTS5 merges the many small segments the batches wrote; PostgreSQL refreshes statistics. */
async function finishResourceSearch(db: Kysely<DB>, dialect: DialectName): Promise<void> {
  if (dialect === 'sqlite') {
    await sql`insert into resource_search_fts(resource_search_fts) values ('optimize')`.execute(db);
  } else {
    await sql`analyze resource_search`.execute(db);
  }
}

/** The indexes `cli search rebuild --index` names, each rebuilt on its own. */
export const SEARCH_INDEXES = {
  resources: rebuildResourceSearch,
  servers: (db: Kysely<DB>, _dialect: DialectName, onProgress?: OnProgress) =>
    rebuildServerSearch(db, onProgress),
  teams: (db: Kysely<DB>, _dialect: DialectName, onProgress?: OnProgress) =>
    rebuildTeamSearch(db, onProgress),
  users: (db: Kysely<DB>, _dialect: DialectName, onProgress?: OnProgress) =>
    rebuildUserSearch(db, onProgress),
} satisfies Record<
  string,
  (db: Kysely<DB>, dialect: DialectName, onProgress?: OnProgress) => Promise<{ documents: number }>
>;

export type SearchIndexName = keyof typeof SEARCH_INDEXES;

/** Every search index (or the ones named), one after the other: {index: documents written}. */
export async function rebuildSearchIndexes(
  db: Kysely<DB>,
  dialect: DialectName,
  onProgress?: OnProgress,
  only?: readonly SearchIndexName[],
  options: RebuildOptions = {},
): Promise<Record<string, number>> {
  const result: Record<string, number> = {};
  for (const name of Object.keys(SEARCH_INDEXES) as SearchIndexName[]) {
    if (only !== undefined && !only.includes(name)) continue;
    result[name] = (await SEARCH_INDEXES[name](db, dialect, onProgress, options)).documents;
  }
  return result;
}
