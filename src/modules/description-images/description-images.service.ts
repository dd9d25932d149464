// Images embedded in resource and server descriptions (DESIGN §8 "Description images"). An upload is temporary
// until a saved description contains its URL; unused temporary images are purged after 7 days; at most 20
// temporary images per user; an identical image for the same owner returns the existing one.
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../core/clock.js';
import { DAY_MS } from '../../core/clock.js';
import type { DialectName } from '../../core/db/database.js';
import { isUniqueViolation, lockForUpdate } from '../../core/db/dialect.js';
import type { DB } from '../../core/db/schema.js';
import { conflict, forbidden, notFound } from '../../core/http/errors.js';
import { safeFileName } from '../../core/http/multipart.js';
import { newId } from '../../core/ids.js';
import { processImage } from '../../core/images.js';
import type { MediaUrls } from '../../core/media-urls.js';
import type { Storage } from '../../core/storage/storage.js';
import * as repo from './description-images.repo.js';
import type { DescriptionImageRow } from './description-images.repo.js';

export type DescriptionImageOwnerType = 'RESOURCE' | 'SERVER';
type Executor = Kysely<DB> | Transaction<DB>;

export const MAX_TEMPORARY_IMAGES = 20;
export const TEMPORARY_LIFETIME_MS = 7 * DAY_MS;
const PURGE_BATCH = 500;

export interface DescriptionImageView {
  id: string;
  url: string;
  fileName: string;
  fileSize: number;
  isTemporary: boolean;
  isUsed: boolean;
  createdAt: string;
}

export type DescriptionImagesService = ReturnType<typeof createDescriptionImagesService>;

export function createDescriptionImagesService(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  storage: Storage;
  clock: Clock;
  urls: MediaUrls;
}) {
  const { db, dialect, storage, clock, urls } = deps;

  const toView = (row: DescriptionImageRow): DescriptionImageView => ({
    id: row.id,
    url: urls.url(row.storage_key)!,
    fileName: row.file_name,
    fileSize: row.file_size,
    isTemporary: Boolean(row.is_temporary),
    isUsed: Boolean(row.is_used),
    createdAt: row.created_at,
  });

  async function deleteObjects(keys: string[]): Promise<void> {
    await Promise.all(keys.map((key) => storage.delete(key)));
  }

  return {
    /** Returns the image and whether it was created now (false: an identical one already existed). */
    async upload(
      ownerType: DescriptionImageOwnerType,
      ownerId: string,
      uploaderId: string,
      upload: { data: Buffer; fileName: string },
    ): Promise<{ image: DescriptionImageView; created: boolean }> {
      const image = await processImage(upload.data, { allowGif: true });
      const existing = await repo.findByHash(db, ownerType, ownerId, image.sha256);
      if (existing !== undefined) return { image: toView(existing), created: false };

      const key = `images/description/${ownerType.toLowerCase()}/${ownerId}/${image.sha256.slice(0, 32)}.${image.extension}`;
      const row: DescriptionImageRow = {
        id: newId(),
        owner_type: ownerType,
        owner_id: ownerId,
        uploader_id: uploaderId,
        storage_key: key,
        sha256: image.sha256,
        file_name: safeFileName(upload.fileName),
        file_size: image.data.length,
        is_temporary: true,
        is_used: false,
        created_at: clock.now().toISOString(),
      };
      // The object goes first (no storage I/O inside a transaction); it is content-addressed, so a concurrent
      // identical upload writes the same bytes to the same key.
      await storage.put(key, image.data, { contentType: image.contentType, immutable: true });
      try {
        await db.transaction().execute(async (trx) => {
          await lockForUpdate(trx, dialect, `description-images:${uploaderId}`);
          if ((await repo.countTemporaryOfUploader(trx, uploaderId)) >= MAX_TEMPORARY_IMAGES) {
            throw conflict(
              `At most ${MAX_TEMPORARY_IMAGES} temporary description images per user: use or delete some first`,
              'TEMPORARY_IMAGE_LIMIT',
              { limit: MAX_TEMPORARY_IMAGES },
            );
          }
          await repo.insertImage(trx, row);
        });
      } catch (error) {
        if (isUniqueViolation(error)) {
          const raced = await repo.findByHash(db, ownerType, ownerId, image.sha256);
          if (raced !== undefined) return { image: toView(raced), created: false };
        }
        // Only remove the object if no row points at it.
        if ((await repo.findByHash(db, ownerType, ownerId, image.sha256)) === undefined)
          await storage.delete(key);
        throw error;
      }
      return { image: toView(row), created: true };
    },

    async listTemporary(ownerType: DescriptionImageOwnerType, ownerId: string, uploaderId: string) {
      return (await repo.listTemporaryOf(db, ownerType, ownerId, uploaderId)).map(toView);
    },

    /** Only the uploader, and only while the saved description does not contain the image. */
    async remove(ownerType: DescriptionImageOwnerType, ownerId: string, imageId: string, callerId: string) {
      const row = await repo.findImage(db, ownerType, ownerId, imageId);
      if (row === undefined) throw notFound('Description image');
      if (row.uploader_id !== callerId)
        throw forbidden('Only the user who uploaded this image can delete it');
      if (row.is_used) {
        throw conflict(
          'This image is used in the saved description: remove it from the description first',
          'IMAGE_IN_USE',
        );
      }
      await repo.deleteImage(db, row.id);
      await storage.delete(row.storage_key);
    },

    /**
     * Call whenever a description is saved. Images whose key occurs in the text become used and permanent;
     * the others become unused (a permanent image stays, but its uploader may now delete it). The key is matched
     * rather than the full URL so a change of CDN_URL does not orphan images.
     */
    async markUsed(
      ownerType: DescriptionImageOwnerType,
      ownerId: string,
      description: string,
      executor: Executor = db,
    ): Promise<void> {
      const rows = await repo.listOfOwner(executor, ownerType, ownerId);
      const used = rows.filter((row) => description.includes(row.storage_key));
      const unused = rows.filter((row) => !description.includes(row.storage_key));
      await repo.setUsage(
        executor,
        used.filter((row) => !row.is_used || row.is_temporary).map((row) => row.id),
        true,
      );
      await repo.setUsage(
        executor,
        unused.filter((row) => Boolean(row.is_used)).map((row) => row.id),
        false,
      );
    },

    deleteRowsOf: (executor: Executor, ownerType: DescriptionImageOwnerType, ownerId: string) =>
      repo.deleteAllOf(executor, ownerType, ownerId),

    deleteObjects,

    /** The purge job: never-used temporary images older than 7 days, rows first, then objects. */
    async purgeStale(): Promise<number> {
      const before = new Date(clock.now().getTime() - TEMPORARY_LIFETIME_MS).toISOString();
      let purged = 0;
      for (;;) {
        const keys = await repo.deleteStaleTemporary(db, before, PURGE_BATCH);
        await deleteObjects(keys);
        purged += keys.length;
        if (keys.length < PURGE_BATCH) return purged;
      }
    },
  };
}
