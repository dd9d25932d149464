// Compare-and-set of an image key column, shared by the tables that hold images (users, teams, resources,
// servers): of two concurrent uploads the second loses instead of orphaning the object the first one stored.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from './schema.js';

type Executor = Kysely<DB> | Transaction<DB>;
export type ImageTable = 'users' | 'teams' | 'resources' | 'servers';

/** Points `column` at `next` only while it still holds `expected`; false when it did not (or the row is gone). */
export async function swapImageKey(
  db: Executor,
  table: ImageTable,
  id: string,
  column: string,
  expected: string | null,
  next: string | null,
  at: string,
): Promise<boolean> {
  // Kysely types a statement over a union of tables poorly; every table here has id, updated_at and the column.
  const result = await db
    .updateTable(table as 'teams')
    .set({ [column]: next, updated_at: at })
    .where('id', '=', id)
    .where(column as 'logo_key', expected === null ? 'is' : '=', expected)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
