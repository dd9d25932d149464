// Rebuilding the search indexes from the tables they are derived from: by migrations that create or change a
// document format, and by operators (`cli search rebuild`) after restoring or repairing data by hand.
import type { Kysely } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import type { DB } from '../../core/db/schema.js';
import { resourceDocument, selectResourceSources, writeResourceDocuments } from './resource-documents.js';

export interface RebuildProgress {
  index: string;
  done: number;
  total: number;
}

export type OnProgress = (progress: RebuildProgress) => void;

const BATCH = 2_000;

/** Every resource document, rewritten from the resources (scaffold: a plain batched pass; to be optimised). */
export async function rebuildResourceSearch(
  db: Kysely<DB>,
  dialect: DialectName,
  onProgress?: OnProgress,
): Promise<{ documents: number }> {
  const totalRow = await db
    .selectFrom('resources')
    .where('status', '=', 'APPROVED')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  const total = Number(totalRow.count);
  await db.deleteFrom('resource_search').execute();
  let done = 0;
  let after = '';
  for (;;) {
    const sources = await selectResourceSources(db)
      .where('resources.status', '=', 'APPROVED')
      .where('resources.id', '>', after)
      .orderBy('resources.id')
      .limit(BATCH)
      .execute();
    if (sources.length === 0) break;
    await db
      .transaction()
      .execute((trx) => writeResourceDocuments(trx, dialect, sources.map(resourceDocument)));
    done += sources.length;
    after = sources.at(-1)!.id;
    onProgress?.({ index: 'resources', done, total });
  }
  return { documents: done };
}

/** Every search index. */
export async function rebuildSearchIndexes(
  db: Kysely<DB>,
  dialect: DialectName,
  onProgress?: OnProgress,
): Promise<Record<string, number>> {
  const resources = await rebuildResourceSearch(db, dialect, onProgress);
  return { resources: resources.documents };
}
