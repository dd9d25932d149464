import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
import { moveCounter, readCounterSum } from '../../../core/db/counters.js';
import type { DialectName } from '../../../core/db/database.js';
import { containsInsensitive } from '../../../core/db/dialect.js';
import { countTagsMatchingIn, findTagIn, listTagsIn } from '../../catalogs/tag-tables.repo.js';
import type { DB, ServerCategoriesTable, ServerTagsTable } from '../../../core/db/schema.js';

type Executor = Kysely<DB> | Transaction<DB>;
export type ServerTagRow = Selectable<ServerTagsTable>;
export type ServerCategoryRow = Selectable<ServerCategoriesTable>;

/** The `counters` row holding the number of server tags (GET /server-tags `total` without a search). */
const TAG_TOTAL = 'server_tags';

export const findTag = (db: Executor, by: { id: string } | { slug: string }) =>
  findTagIn(db, 'server_tags', by);

export const listTags = (
  db: Executor,
  dialect: DialectName,
  search: string | undefined,
  limit: number,
  offset: number,
): Promise<ServerTagRow[]> =>
  listTagsIn(db, dialect, 'server_tags', search, limit, offset) as Promise<ServerTagRow[]>;

export const countTagsMatching = (db: Executor, dialect: DialectName, search: string) =>
  countTagsMatchingIn(db, dialect, 'server_tags', search);

/** Most used first: the popular list and the autocomplete (with a search). */
export function listTagsByUsage(
  db: Executor,
  dialect: DialectName,
  search: string | undefined,
  limit: number,
): Promise<ServerTagRow[]> {
  let query = db.selectFrom('server_tags').selectAll();
  if (search !== undefined) query = query.where((eb) => containsInsensitive(dialect, eb.ref('name'), search));
  return query.orderBy('usage_count', 'desc').orderBy('name').orderBy('id').limit(limit).execute();
}

export async function readTagTotal(db: Executor): Promise<number> {
  return readCounterSum(db, [TAG_TOTAL]);
}

export async function moveTagTotal(db: Executor, delta: 1 | -1): Promise<void> {
  await moveCounter(db, TAG_TOTAL, delta);
}

export async function tagSlugExists(db: Executor, slug: string): Promise<boolean> {
  return (
    (await db.selectFrom('server_tags').select('id').where('slug', '=', slug).executeTakeFirst()) !==
    undefined
  );
}

export async function insertTag(db: Executor, row: Insertable<ServerTagsTable>): Promise<void> {
  await db.insertInto('server_tags').values(row).execute();
}

export async function updateTag(db: Executor, id: string, patch: Updateable<ServerTagsTable>): Promise<void> {
  await db.updateTable('server_tags').set(patch).where('id', '=', id).execute();
}

/** False when the tag did not exist. Its links go with it (ON DELETE CASCADE). */
export async function deleteTag(db: Executor, id: string): Promise<boolean> {
  const result = await db.deleteFrom('server_tags').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export const findCategory = (db: Executor, by: { id: string } | { slug: string }) =>
  db
    .selectFrom('server_categories')
    .selectAll()
    .where('id' in by ? 'id' : 'slug', '=', 'id' in by ? by.id : by.slug)
    .executeTakeFirst();

export function listCategories(db: Executor): Promise<ServerCategoryRow[]> {
  return db.selectFrom('server_categories').selectAll().orderBy('position').orderBy('name').execute();
}

export async function nextCategoryPosition(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('server_categories')
    .select((eb) => eb.fn.max('position').as('last'))
    .executeTakeFirst();
  return row?.last === null || row?.last === undefined ? 0 : Number(row.last) + 1;
}

export async function categorySlugExists(db: Executor, slug: string): Promise<boolean> {
  const row = await db
    .selectFrom('server_categories')
    .select('id')
    .where('slug', '=', slug)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertCategory(db: Executor, row: Insertable<ServerCategoriesTable>): Promise<void> {
  await db.insertInto('server_categories').values(row).execute();
}

export async function updateCategory(
  db: Executor,
  id: string,
  patch: Updateable<ServerCategoriesTable>,
): Promise<void> {
  await db.updateTable('server_categories').set(patch).where('id', '=', id).execute();
}

export async function deleteCategory(db: Executor, id: string): Promise<boolean> {
  const result = await db.deleteFrom('server_categories').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
