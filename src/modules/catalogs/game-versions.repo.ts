import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
import type { DB, GameVersionsTable } from '../../core/db/schema.js';

export type GameVersionRow = Selectable<GameVersionsTable>;
type Executor = Kysely<DB> | Transaction<DB>;

/** Newest first. */
export const listGameVersions = (db: Executor): Promise<GameVersionRow[]> =>
  db.selectFrom('game_versions').selectAll().orderBy('release_order', 'desc').orderBy('id', 'desc').execute();

export const findGameVersion = (db: Executor, id: string) =>
  db.selectFrom('game_versions').selectAll().where('id', '=', id).executeTakeFirst();

export async function nameTaken(db: Executor, name: string, exceptId?: string): Promise<boolean> {
  let query = db.selectFrom('game_versions').select('id').where('name', '=', name);
  if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

export async function nextReleaseOrder(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('game_versions')
    .select((eb) => eb.fn.max('release_order').as('last'))
    .executeTakeFirst();
  return row?.last === null || row?.last === undefined ? 1 : Number(row.last) + 1;
}

export async function insertGameVersion(db: Executor, row: Insertable<GameVersionsTable>): Promise<void> {
  await db.insertInto('game_versions').values(row).execute();
}

export async function updateGameVersion(db: Executor, id: string, patch: Updateable<GameVersionsTable>) {
  const result = await db.updateTable('game_versions').set(patch).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteGameVersion(db: Executor, id: string): Promise<boolean> {
  const result = await db.deleteFrom('game_versions').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
