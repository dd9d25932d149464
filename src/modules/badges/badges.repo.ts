import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
import type { BadgesTable, DB } from '../../core/db/schema.js';

export type BadgeRow = Selectable<BadgesTable>;
type Executor = Kysely<DB> | Transaction<DB>;

export const findBadgeById = (db: Executor, id: string): Promise<BadgeRow | undefined> =>
  db.selectFrom('badges').selectAll().where('id', '=', id).executeTakeFirst();

export const findBadgeBySlug = (db: Executor, slug: string): Promise<BadgeRow | undefined> =>
  db.selectFrom('badges').selectAll().where('slug', '=', slug).executeTakeFirst();

export async function slugExists(db: Executor, slug: string): Promise<boolean> {
  return (
    (await db.selectFrom('badges').select('id').where('slug', '=', slug).executeTakeFirst()) !== undefined
  );
}

/** The whole catalog (a short list), by name; optionally only active or inactive badges. */
export function listBadges(db: Executor, isActive: boolean | undefined): Promise<BadgeRow[]> {
  let query = db.selectFrom('badges').selectAll();
  if (isActive !== undefined) query = query.where('is_active', '=', isActive);
  return query.orderBy('name').orderBy('id').execute();
}

export async function insertBadge(db: Executor, row: Insertable<BadgesTable>): Promise<void> {
  await db.insertInto('badges').values(row).execute();
}

export async function updateBadge(
  db: Executor,
  id: string,
  patch: Updateable<BadgesTable>,
): Promise<boolean> {
  const result = await db.updateTable('badges').set(patch).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The awards go with it (ON DELETE CASCADE). */
export async function deleteBadge(db: Executor, id: string): Promise<boolean> {
  const result = await db.deleteFrom('badges').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
