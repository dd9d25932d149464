import type { Insertable, Kysely, Selectable, Transaction } from 'kysely';
import type { DB, DescriptionImagesTable } from '../../core/db/schema.js';

export type DescriptionImageRow = Selectable<DescriptionImagesTable>;
type Executor = Kysely<DB> | Transaction<DB>;

export async function insertImage(db: Executor, row: Insertable<DescriptionImagesTable>): Promise<void> {
  await db.insertInto('description_images').values(row).execute();
}

export const findByHash = (db: Executor, ownerType: string, ownerId: string, sha256: string) =>
  db
    .selectFrom('description_images')
    .selectAll()
    .where('owner_type', '=', ownerType)
    .where('owner_id', '=', ownerId)
    .where('sha256', '=', sha256)
    .executeTakeFirst();

export const findImage = (db: Executor, ownerType: string, ownerId: string, imageId: string) =>
  db
    .selectFrom('description_images')
    .selectAll()
    .where('id', '=', imageId)
    .where('owner_type', '=', ownerType)
    .where('owner_id', '=', ownerId)
    .executeTakeFirst();

export const listOfOwner = (db: Executor, ownerType: string, ownerId: string) =>
  db
    .selectFrom('description_images')
    .selectAll()
    .where('owner_type', '=', ownerType)
    .where('owner_id', '=', ownerId)
    .execute();

export const listTemporaryOf = (db: Executor, ownerType: string, ownerId: string, uploaderId: string) =>
  db
    .selectFrom('description_images')
    .selectAll()
    .where('uploader_id', '=', uploaderId)
    .where('is_temporary', '=', true)
    .where('owner_type', '=', ownerType)
    .where('owner_id', '=', ownerId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();

export async function countTemporaryOfUploader(db: Executor, uploaderId: string): Promise<number> {
  const row = await db
    .selectFrom('description_images')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('uploader_id', '=', uploaderId)
    .where('is_temporary', '=', true)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function setUsage(db: Executor, ids: string[], used: boolean): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('description_images')
    .set(used ? { is_used: true, is_temporary: false } : { is_used: false })
    .where('id', 'in', ids)
    .execute();
}

export async function deleteImage(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('description_images').where('id', '=', id).execute();
}

/** Deletes every image row of an owner and returns their storage keys. */
export async function deleteAllOf(db: Executor, ownerType: string, ownerId: string): Promise<string[]> {
  const rows = await db
    .deleteFrom('description_images')
    .where('owner_type', '=', ownerType)
    .where('owner_id', '=', ownerId)
    .returning('storage_key')
    .execute();
  return rows.map((row) => row.storage_key);
}

/** Deletes up to `limit` never-used temporary images created before `before`; returns their keys. */
export async function deleteStaleTemporary(db: Executor, before: string, limit: number): Promise<string[]> {
  const stale = await db
    .selectFrom('description_images')
    .select(['id', 'storage_key'])
    .where('is_temporary', '=', true)
    .where('created_at', '<', before)
    .orderBy('created_at')
    .limit(limit)
    .execute();
  if (stale.length === 0) return [];
  // Re-checked in the delete: an image used since the select stays, and so does its object.
  const deleted = await db
    .deleteFrom('description_images')
    .where(
      'id',
      'in',
      stale.map((row) => row.id),
    )
    .where('is_temporary', '=', true)
    .returning('storage_key')
    .execute();
  return deleted.map((row) => row.storage_key);
}
