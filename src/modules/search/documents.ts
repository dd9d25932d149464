// What every search index has in common, whatever it indexes: one document row per indexed object in a
// `<kind>_search` table (keyed by the object's id, text made by text.ts), written or removed in the transaction of
// the change, and rebuilt in batches. Each kind (server-, team-, user-documents.ts) only says how to load the
// sources of some ids and which of them get a document; the SQL here is the same for all of them.
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../core/db/schema.js';

type Executor = Kysely<DB> | Transaction<DB>;
/** The document tables are named at run time, which Kysely's table types cannot follow. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Untyped = Kysely<any>;

/** A document: the object's id under `key` and one text per indexed column. */
export type SearchDocument = Record<string, string>;

export interface DocumentKind<Source> {
  /** The index's name in progress reports and rebuild results (e.g. 'servers'). */
  name: string;
  /** The document table (e.g. 'server_search'). */
  table: string;
  /** Its column holding the indexed object's id (e.g. 'server_id'). */
  key: string;
  /** The columns a write replaces: its text columns in weight order, then any others its document holds. */
  columns: readonly string[];
  /** The sources of these ids (missing ids are absent). */
  load(db: Executor, ids: readonly string[]): Promise<Source[]>;
  /** The id of a source. */
  idOf(source: Source): string;
  /** A source's document, or null when it must not be found (e.g. a server that is not APPROVED). */
  document(source: Source): SearchDocument | null;
  /** A page of ids to rebuild from, in id order after `after`: the ones that may have a document. */
  pageIds(db: Executor, after: string, limit: number): Promise<string[]>;
  /** How many documents a rebuild will write at most (for progress). */
  countSources(db: Executor): Promise<number>;
}

/**
 * `pageIds` and `countSources` of a kind whose sources are the rows of one table (optionally only its APPROVED
 * ones): a keyset page of ids, and their count.
 */
export function sourceRows(
  table: 'servers' | 'teams' | 'users',
  onlyApproved = false,
): Pick<DocumentKind<unknown>, 'pageIds' | 'countSources'> {
  const rows = (db: Executor) => {
    const all = (db as unknown as Untyped).selectFrom(table);
    return onlyApproved ? all.where('status', '=', 'APPROVED') : all;
  };
  return {
    async pageIds(db, after, limit) {
      const page = await rows(db).select('id').where('id', '>', after).orderBy('id').limit(limit).execute();
      return page.map((row: { id: string }) => row.id);
    },
    async countSources(db) {
      const row = await rows(db)
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },
  };
}

const CHUNK = 500;

/** Writes (inserts or replaces) these documents. */
export async function writeDocuments(
  trx: Executor,
  kind: Pick<DocumentKind<unknown>, 'table' | 'key' | 'columns'>,
  documents: readonly SearchDocument[],
): Promise<void> {
  const db = trx as unknown as Untyped;
  for (let start = 0; start < documents.length; start += CHUNK) {
    const chunk = documents.slice(start, start + CHUNK);
    await db
      .insertInto(kind.table)
      .values(chunk)
      .onConflict((conflict) =>
        conflict
          .column(kind.key)
          .doUpdateSet(
            Object.fromEntries(kind.columns.map((column) => [column, sql.ref(`excluded.${column}`)])),
          ),
      )
      .execute();
  }
}

/** Removes the documents of these ids (absent ones are ignored). */
export async function deleteDocuments(
  trx: Executor,
  kind: Pick<DocumentKind<unknown>, 'table' | 'key'>,
  ids: readonly string[],
): Promise<void> {
  const db = trx as unknown as Untyped;
  for (let start = 0; start < ids.length; start += CHUNK) {
    await db
      .deleteFrom(kind.table)
      .where(kind.key, 'in', ids.slice(start, start + CHUNK))
      .execute();
  }
}

/**
 * Brings the documents of these ids in line with what is stored now: written for the sources that get one, removed
 * for the others and for deleted ids. Call it in the transaction of the change, after the change.
 */
export async function refreshDocuments<Source>(
  trx: Executor,
  kind: DocumentKind<Source>,
  ids: readonly string[],
): Promise<void> {
  const unique = [...new Set(ids)];
  for (let start = 0; start < unique.length; start += CHUNK) {
    const chunk = unique.slice(start, start + CHUNK);
    const sources = await kind.load(trx, chunk);
    const documents: SearchDocument[] = [];
    const kept = new Set<string>();
    for (const source of sources) {
      const document = kind.document(source);
      if (document === null) continue;
      documents.push(document);
      kept.add(kind.idOf(source));
    }
    const gone = chunk.filter((id) => !kept.has(id));
    if (gone.length > 0) await deleteDocuments(trx, kind, gone);
    await writeDocuments(trx, kind, documents);
  }
}

export interface RebuildProgress {
  index: string;
  done: number;
  total: number;
}

const BATCH = 2_000;

/**
 * Every document of one kind, rewritten from its sources in batches of one transaction each. A write that lands
 * during the rebuild refreshes its own document in its own transaction, so it is never lost: either its batch
 * reads the new row, or its refresh runs after the batch.
 */
export async function rebuildDocuments<Source>(
  db: Kysely<DB>,
  kind: DocumentKind<Source>,
  onProgress?: (progress: RebuildProgress) => void,
): Promise<{ documents: number }> {
  const total = await kind.countSources(db);
  await (db as unknown as Untyped).deleteFrom(kind.table).execute();
  let done = 0;
  let after = '';
  for (;;) {
    const ids = await kind.pageIds(db, after, BATCH);
    if (ids.length === 0) break;
    // A migration already runs in a transaction on PostgreSQL (Kysely's migrator), and nested ones are refused.
    const batch = (write: (trx: Executor) => Promise<void>) =>
      db.isTransaction ? write(db) : db.transaction().execute(write);
    await batch(async (trx) => {
      const documents = (await kind.load(trx, ids)).flatMap((source): SearchDocument[] => {
        const document = kind.document(source);
        return document === null ? [] : [document];
      });
      await writeDocuments(trx, kind, documents);
      done += documents.length;
    });
    after = ids.at(-1)!;
    onProgress?.({ index: kind.name, done, total });
  }
  return { documents: done };
}
