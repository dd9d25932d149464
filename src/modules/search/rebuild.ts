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
// An exclusive rebuild (nothing else writes: migrations, seeds, `cli search rebuild --exclusive`) is one
// transaction instead, with the per-row index upkeep set aside and done once at the end (RebuildOptions).
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import type { DB } from '../../core/db/schema.js';
import { resourceDocument, selectResourceSources, writeResourceDocuments } from './resource-documents.js';
import type { ResourceDocument } from './resource-documents.js';
import {
  clearResourceSearch,
  DERIVED,
  DERIVED_TABLES,
  existingTables,
  ftsCommand,
  RESOURCE_FTS_TABLES,
} from './resource-search-tables.js';
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

/** Resources per transaction of an exclusive PostgreSQL rebuild's reads and multi-row inserts. */
const EXCLUSIVE_BATCH = 5_000;

/**
 * The next `size` resources after `after` (any status), by id: their sources, read in the batch's transaction.
 * locked: PostgreSQL, online, holds them against change first (lockBatch). An exclusive rebuild takes no row
 * locks: FOR SHARE writes every resource's and owner's row header (dirty pages and WAL for the whole table).
 */
async function readBatch(trx: Transaction<DB>, after: string, size: number, locked: boolean) {
  // Status is filtered here, not in SQL: given `status = ?` SQLite walks the status index and sorts every
  // APPROVED resource for each batch (0.7 s a batch at 100k, quadratic in all) instead of reading a key range.
  if (!locked) {
    return selectResourceSources(trx)
      .where('resources.id', '>', after)
      .orderBy('resources.id')
      .limit(size)
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
   * window). The whole rebuild is then one transaction (writers and, on PostgreSQL, readers of the index wait
   * for it; a crash rolls it all back and leaves the old index) that loads the documents with their per-row index
   * upkeep set aside and builds it once at the end. SQLite: the FTS5 triggers off, one FTS5 'rebuild' (measured
   * 13 s against 22 s of CPU per 90k documents). PostgreSQL: rebuildExclusivePostgres.
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
      const loaded = await loadResourceSearch((work) => work(trx), dialect, total, onProgress, false);
      for (const fts of await existingTables(trx, dialect, RESOURCE_FTS_TABLES)) {
        await ftsCommand(trx, fts, 'rebuild');
      }
      for (const definition of ftsTriggers) await sql.raw(definition).execute(trx);
      return loaded;
    });
    return { documents };
  }
  if (options.exclusive === true) {
    const documents = await inTransaction(db, (trx) => rebuildExclusivePostgres(trx, total, onProgress));
    await finishResourceSearch(db, dialect);
    return { documents };
  }
  await inTransaction(db, (trx) => clearResourceSearch(trx, dialect));
  const documents = await loadResourceSearch(
    (work) => inTransaction(db, work),
    dialect,
    total,
    onProgress,
    dialect === 'postgres',
  );
  await finishResourceSearch(db, dialect);
  return { documents };
}

/**
 * PostgreSQL, nothing else writing, in the caller's transaction. Measured on 9k documents inserted in one
 * transaction: 28.7 s with the facet triggers (each document moves ~10 counter rows, and every update of a row
 * already updated in the same transaction first walks the chain of its earlier versions: quadratic in the
 * batch), 2.8 s without them, 1.3 s without the GIN index too (+0.45 s to build it once, +0.15 s to count the
 * facets in one statement). What remained was mostly computing the tsvectors (a generated column then; since
 * migration 0034 a derived table's). So: every trigger of resource_search off and every index that backs no
 * constraint dropped (DDL is transactional: a failure puts them all back), documents inserted EXCLUSIVE_BATCH
 * at a time by one multi-row statement, then the indexes recreated from their own definitions, the triggers
 * back on and the derived tables recomputed, each with its own indexes set aside the same way.
 */
async function rebuildExclusivePostgres(
  trx: Transaction<DB>,
  total: number,
  onProgress?: OnProgress,
): Promise<number> {
  await sql`alter table resource_search disable trigger user`.execute(trx);
  const documents = await withIndexesSetAside(trx, 'resource_search', async () => {
    await clearResourceSearch(trx, 'postgres');
    return loadPipelined(trx, total, onProgress);
  });
  await sql`alter table resource_search enable trigger user`.execute(trx);
  for (const table of await existingTables(trx, 'postgres', DERIVED_TABLES)) {
    await withIndexesSetAside(trx, table, () => DERIVED[table as keyof typeof DERIVED].execute(trx));
  }
  return documents;
}

/**
 * PostgreSQL: runs `load` with the table's secondary indexes (every one that backs no constraint: the GIN ones of
 * the documents and names; a partitioned table's with its partitions') dropped, then recreates them from their
 * own definitions, in the caller's transaction. Building a GIN index once is several times cheaper than
 * inserting every document's entries into it.
 */
async function withIndexesSetAside<T>(
  trx: Transaction<DB>,
  table: string,
  load: () => Promise<T>,
): Promise<T> {
  const { rows: indexes } = await sql<{ name: string; definition: string }>`
    select c.relname as name, pg_get_indexdef(i.indexrelid) as definition
    from pg_index i join pg_class c on c.oid = i.indexrelid
    where i.indrelid = ${table}::regclass
      and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid)
    order by c.relname`.execute(trx);
  for (const index of indexes) await sql`drop index ${sql.id(index.name)}`.execute(trx);
  const result = await load();
  // A GIN index builds faster with memory to sort its entries in (the default 64 MB spills at ~100k documents).
  await sql`set local maintenance_work_mem = '512MB'`.execute(trx);
  // A partitioned table's index reads `ON ONLY`, which would recreate it on the parent alone (invalid, and no
  // partition indexed): without ONLY it is built on every partition again.
  for (const index of indexes) await sql.raw(index.definition.replace(' ON ONLY ', ' ON ')).execute(trx);
  return result;
}

/**
 * A directory index (servers, teams, users: modules/search/*-documents.ts). Exclusive on PostgreSQL: the whole
 * rebuild in one transaction with the table's GIN indexes set aside, and those of `copies`, the tables its
 * triggers write (servers: server_search_vectors, migration 0045), where they exist; otherwise as the kind
 * rebuilds itself, in batches.
 */
function directoryIndex(
  table: string,
  rebuild: (db: Kysely<DB>, onProgress?: OnProgress) => Promise<{ documents: number }>,
  copies: readonly string[] = [],
) {
  const setAside = async (
    trx: Transaction<DB>,
    tables: readonly string[],
    onProgress?: OnProgress,
  ): Promise<{ documents: number }> => {
    const [first, ...rest] = tables;
    return first === undefined
      ? rebuild(trx, onProgress)
      : withIndexesSetAside(trx, first, () => setAside(trx, rest, onProgress));
  };
  return (db: Kysely<DB>, dialect: DialectName, onProgress?: OnProgress, options: RebuildOptions = {}) =>
    options.exclusive === true && dialect === 'postgres'
      ? inTransaction(db, async (trx) =>
          setAside(trx, [table, ...(await existingTables(trx, dialect, copies))], onProgress),
        )
      : rebuild(db, onProgress);
}

/** Documents into an emptied resource_search, one statement per batch: its columns as arrays, unnested. */
async function insertDocumentsPostgres(trx: Transaction<DB>, documents: readonly ResourceDocument[]) {
  if (documents.length === 0) return;
  const column = (name: keyof ResourceDocument) => documents.map((document) => document[name]);
  await sql`
    insert into resource_search (resource_id, name_text, keywords_text, body_text, owner_text, facet_keys)
    select * from unnest(${column('resource_id')}::text[], ${column('name_text')}::text[],
      ${column('keywords_text')}::text[], ${column('body_text')}::text[], ${column('owner_text')}::text[],
      ${column('facet_keys')}::text[])`.execute(trx);
}

/** Writes the documents of every APPROVED resource, BATCH resources per `run` (a transaction of its own, or not). */
async function loadResourceSearch(
  run: <T>(work: Work<T>) => Promise<T>,
  dialect: DialectName,
  total: number,
  onProgress: OnProgress | undefined,
  locked: boolean,
): Promise<number> {
  let done = 0;
  let after = '';
  for (;;) {
    const batch = await run(async (trx) => {
      const sources = await readBatch(trx, after, BATCH, locked);
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

/**
 * The exclusive PostgreSQL load, pipelined on the transaction's one connection: the next batch's read is sent
 * before this batch's insert, so the application builds the next documents while the database inserts these
 * (at 100k, 7.5 s of the application's CPU and 13 s of the database's, otherwise one after the other).
 */
async function loadPipelined(trx: Transaction<DB>, total: number, onProgress?: OnProgress): Promise<number> {
  let done = 0;
  let sources = await readBatch(trx, '', EXCLUSIVE_BATCH, false);
  let writing: Promise<void> = Promise.resolve();
  while (sources.length > 0) {
    const documents = sources.filter((source) => source.status === 'APPROVED').map(resourceDocument);
    await writing;
    const next = readBatch(trx, sources.at(-1)!.id, EXCLUSIVE_BATCH, false);
    writing = insertDocumentsPostgres(trx, documents);
    // Awaited at the next turn; a failed read meanwhile must not leave its rejection unhandled.
    writing.catch(() => undefined);
    sources = await next;
    done += documents.length;
    onProgress?.({ index: 'resources', done, total: Math.max(total, done) });
  }
  await writing;
  if (done === 0) onProgress?.({ index: 'resources', done, total: 0 });
  return done;
}

/** After a bulk load: FTS5 merges the many small segments the batches wrote; PostgreSQL refreshes statistics. */
async function finishResourceSearch(db: Kysely<DB>, dialect: DialectName): Promise<void> {
  if (dialect === 'sqlite') {
    for (const fts of await existingTables(db, dialect, RESOURCE_FTS_TABLES))
      await ftsCommand(db, fts, 'optimize');
  } else {
    for (const table of [
      'resource_search',
      ...(await existingTables(db, dialect, ['resource_search_vectors'])),
    ]) {
      await sql`analyze ${sql.table(table)}`.execute(db);
    }
  }
}

/** The indexes `cli search rebuild --index` names, each rebuilt on its own. */
export const SEARCH_INDEXES = {
  resources: rebuildResourceSearch,
  servers: directoryIndex('server_search', rebuildServerSearch, ['server_search_vectors']),
  teams: directoryIndex('team_search', rebuildTeamSearch),
  users: directoryIndex('user_search', rebuildUserSearch),
} satisfies Record<
  string,
  (
    db: Kysely<DB>,
    dialect: DialectName,
    onProgress?: OnProgress,
    options?: RebuildOptions,
  ) => Promise<{ documents: number }>
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
