import type { Kysely, Selectable, Transaction, Updateable } from 'kysely';
import type { DB, GalleryImagesTable } from '../../core/db/schema.js';

export type GalleryImageRow = Selectable<GalleryImagesTable>;
type Executor = Kysely<DB> | Transaction<DB>;

export const listImages = (db: Executor, resourceId: string): Promise<GalleryImageRow[]> =>
  db
    .selectFrom('gallery_images')
    .selectAll()
    .where('resource_id', '=', resourceId)
    .orderBy('position')
    .orderBy('id')
    .execute();

export const findImage = (
  db: Executor,
  resourceId: string,
  imageId: string,
): Promise<GalleryImageRow | undefined> =>
  db
    .selectFrom('gallery_images')
    .selectAll()
    .where('id', '=', imageId)
    .where('resource_id', '=', resourceId)
    .executeTakeFirst();

export async function insertImage(db: Executor, row: GalleryImageRow): Promise<void> {
  await db.insertInto('gallery_images').values(row).execute();
}

export async function updateImage(
  db: Executor,
  id: string,
  patch: Updateable<GalleryImagesTable>,
): Promise<void> {
  await db.updateTable('gallery_images').set(patch).where('id', '=', id).execute();
}

/** Swaps the stored objects only while the row still holds `expectedKey` (of two replaces, one wins). */
export async function swapImageKeys(
  db: Executor,
  id: string,
  expectedKey: string,
  next: { storage_key: string; thumbnail_key: string; updated_at: string },
): Promise<boolean> {
  const result = await db
    .updateTable('gallery_images')
    .set(next)
    .where('id', '=', id)
    .where('storage_key', '=', expectedKey)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteImage(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('gallery_images').where('id', '=', id).execute();
}

/** Every stored object of a resource's gallery (its deletion collects them; the rows go by cascade). */
export async function imageKeysOfResource(db: Executor, resourceId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('gallery_images')
    .select(['storage_key', 'thumbnail_key'])
    .where('resource_id', '=', resourceId)
    .execute();
  return rows.flatMap((row) => [row.storage_key, row.thumbnail_key]);
}
