import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
import type { DB, ResourceCategoriesTable, ResourceType } from '../../core/db/schema.js';

export type CategoryRow = Selectable<ResourceCategoriesTable>;
type Executor = Kysely<DB> | Transaction<DB>;

/** By type, then display position. */
export function listCategories(db: Executor, type: ResourceType | undefined): Promise<CategoryRow[]> {
  let query = db.selectFrom('resource_categories').selectAll();
  if (type !== undefined) query = query.where('resource_type', '=', type);
  return query.orderBy('resource_type').orderBy('position').orderBy('id').execute();
}

export const findCategory = (db: Executor, id: string) =>
  db.selectFrom('resource_categories').selectAll().where('id', '=', id).executeTakeFirst();

export async function slugTakenInType(db: Executor, type: ResourceType, slug: string, exceptId?: string) {
  let query = db
    .selectFrom('resource_categories')
    .select('id')
    .where('resource_type', '=', type)
    .where('slug', '=', slug);
  if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

export async function nextPosition(db: Executor, type: ResourceType): Promise<number> {
  const row = await db
    .selectFrom('resource_categories')
    .select((eb) => eb.fn.max('position').as('last'))
    .where('resource_type', '=', type)
    .executeTakeFirst();
  return row?.last === null || row?.last === undefined ? 0 : Number(row.last) + 1;
}

export async function insertCategory(db: Executor, row: Insertable<ResourceCategoriesTable>): Promise<void> {
  await db.insertInto('resource_categories').values(row).execute();
}

export async function updateCategory(db: Executor, id: string, patch: Updateable<ResourceCategoriesTable>) {
  const result = await db
    .updateTable('resource_categories')
    .set(patch)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Its resource links go with it (ON DELETE CASCADE). */
export async function deleteCategory(db: Executor, id: string): Promise<boolean> {
  const result = await db.deleteFrom('resource_categories').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
