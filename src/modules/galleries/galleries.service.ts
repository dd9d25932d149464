// Resource galleries (interface "Gallery images"): PNG/JPG/WEBP images re-encoded with a 400x300 WEBP
// thumbnail, in a gapless order from 0. Reading follows the resource's visibility; writing needs edit rights.
// Objects are stored before their row and deleted after it (DESIGN §4.6).
import { planReorder } from '../../core/http/reorder.js';
import type { Kysely } from 'kysely';
import type { Actor } from '../../core/auth/authenticate.js';
import type { ResourceAccess } from '../../core/auth/resource-access.js';
import type { Clock } from '../../core/clock.js';
import type { DialectName } from '../../core/db/database.js';
import type { DB } from '../../core/db/schema.js';
import { badRequest, conflict, notFound } from '../../core/http/errors.js';
import { newId } from '../../core/ids.js';
import { makeThumbnail, processImage } from '../../core/images.js';
import { imageKey } from '../../core/images-store.js';
import type { MediaUrls } from '../../core/media-urls.js';
import type { Storage } from '../../core/storage/storage.js';
import { lockResource } from '../resources/resources.repo.js';
import type { ResourcesService } from '../resources/resources.service.js';
import { toGalleryImage } from './galleries.mapper.js';
import type { GalleryImageView } from './galleries.mapper.js';
import * as repo from './galleries.repo.js';
import type { GalleryImageRow } from './galleries.repo.js';
import { MAX_ALT_TEXT, MAX_CAPTION, MAX_GALLERY_IMAGES } from './galleries.schemas.js';

/** Gallery images keep up to 2560x1440 (screenshots), thumbnails fit 400x300. */
const IMAGE_BOX = { maxWidth: 2560, maxHeight: 1440 };

export interface GalleryUpload {
  data: Buffer;
  fields: Record<string, string>;
}

function textField(fields: Record<string, string>, name: string, max: number): string | null {
  const value = fields[name]?.trim();
  if (value === undefined || value === '') return null;
  if (value.length > max) {
    throw badRequest(`${name} is longer than ${max} characters`, {
      fields: { [name]: `at most ${max} characters` },
    });
  }
  return value;
}

const emptyToNull = (value: string | null): string | null => (value === null || value === '' ? null : value);

export type GalleriesService = ReturnType<typeof createGalleriesService>;

export function createGalleriesService(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  storage: Storage;
  clock: Clock;
  urls: MediaUrls;
  resourceAccess: ResourceAccess;
  resources: Pick<ResourcesService, 'requireHead'>;
  log?: (message: string, error: unknown) => void;
}) {
  const { db, dialect, storage, clock, urls, resourceAccess, resources } = deps;

  async function requireEditable(actor: Actor, resourceId: string): Promise<void> {
    await resourceAccess.authorize(actor, await resources.requireHead(resourceId), 'resource.edit');
  }

  async function requireImage(resourceId: string, imageId: string): Promise<GalleryImageRow> {
    const row = await repo.findImage(db, resourceId, imageId);
    if (row === undefined) throw notFound('Gallery image');
    return row;
  }

  /** Processes and stores the image and its thumbnail under keys of this image id. */
  async function storeImage(resourceId: string, imageId: string, data: Buffer) {
    const image = await processImage(data, IMAGE_BOX);
    const thumbnail = await makeThumbnail(image, 400, 300);
    const owner = `${resourceId}/${imageId}`;
    const keys = {
      storage_key: imageKey('gallery', owner, image),
      thumbnail_key: imageKey('gallery-thumbnails', owner, thumbnail),
    };
    await storage.put(keys.storage_key, image.data, { contentType: image.contentType, immutable: true });
    try {
      await storage.put(keys.thumbnail_key, thumbnail.data, {
        contentType: thumbnail.contentType,
        immutable: true,
      });
    } catch (error) {
      await removeObjects([keys.storage_key]);
      throw error;
    }
    return keys;
  }

  async function removeObjects(keys: string[]): Promise<void> {
    const results = await Promise.allSettled(keys.map((key) => storage.delete(key)));
    for (const result of results) {
      if (result.status === 'rejected') deps.log?.('Could not delete a gallery object', result.reason);
    }
  }

  const tooMany = () =>
    conflict(`A resource can have at most ${MAX_GALLERY_IMAGES} gallery images`, 'LIMIT_REACHED', {
      limit: MAX_GALLERY_IMAGES,
    });

  return {
    async list(actor: Actor | null, resourceId: string): Promise<GalleryImageView[]> {
      await resourceAccess.authorizeView(actor, await resources.requireHead(resourceId));
      return (await repo.listImages(db, resourceId)).map((row) => toGalleryImage(row, urls));
    },

    async get(actor: Actor | null, resourceId: string, imageId: string): Promise<GalleryImageView> {
      await resourceAccess.authorizeView(actor, await resources.requireHead(resourceId));
      return toGalleryImage(await requireImage(resourceId, imageId), urls);
    },

    async create(
      actor: Actor,
      resourceId: string,
      read: () => Promise<GalleryUpload>,
    ): Promise<GalleryImageView> {
      await requireEditable(actor, resourceId);
      if ((await repo.listImages(db, resourceId)).length >= MAX_GALLERY_IMAGES) throw tooMany();
      const upload = await read();
      const caption = textField(upload.fields, 'caption', MAX_CAPTION);
      const altText = textField(upload.fields, 'altText', MAX_ALT_TEXT);
      const id = newId();
      const keys = await storeImage(resourceId, id, upload.data);
      try {
        return await db.transaction().execute(async (trx) => {
          if (!(await lockResource(trx, dialect, resourceId))) throw notFound('Resource');
          const existing = await repo.listImages(trx, resourceId);
          if (existing.length >= MAX_GALLERY_IMAGES) throw tooMany();
          const now = clock.now().toISOString();
          const row: GalleryImageRow = {
            id,
            resource_id: resourceId,
            storage_key: keys.storage_key,
            thumbnail_key: keys.thumbnail_key,
            caption,
            alt_text: altText,
            position: existing.length,
            created_at: now,
            updated_at: now,
          };
          await repo.insertImage(trx, row);
          return toGalleryImage(row, urls);
        });
      } catch (error) {
        await removeObjects([keys.storage_key, keys.thumbnail_key]);
        throw error;
      }
    },

    async update(
      actor: Actor,
      resourceId: string,
      imageId: string,
      patch: { caption?: string | null; altText?: string | null },
    ): Promise<GalleryImageView> {
      await requireEditable(actor, resourceId);
      const row = await requireImage(resourceId, imageId);
      const changes = {
        caption: patch.caption === undefined ? row.caption : emptyToNull(patch.caption),
        alt_text: patch.altText === undefined ? row.alt_text : emptyToNull(patch.altText),
        updated_at: clock.now().toISOString(),
      };
      await repo.updateImage(db, imageId, changes);
      return toGalleryImage(Object.assign(row, changes), urls);
    },

    /** New bytes under the same id, position, caption and alt text; the old objects go after the swap. */
    async replace(
      actor: Actor,
      resourceId: string,
      imageId: string,
      read: () => Promise<Buffer>,
    ): Promise<{ id: string; imageUrl: string; updatedAt: string }> {
      await requireEditable(actor, resourceId);
      const row = await requireImage(resourceId, imageId);
      const keys = await storeImage(resourceId, imageId, await read());
      const ours = [keys.storage_key, keys.thumbnail_key].filter(
        (key) => key !== row.storage_key && key !== row.thumbnail_key,
      );
      const updatedAt = clock.now().toISOString();
      let swapped: boolean;
      try {
        swapped = await repo.swapImageKeys(db, imageId, row.storage_key, { ...keys, updated_at: updatedAt });
      } catch (error) {
        await removeObjects(ours);
        throw error;
      }
      if (!swapped) {
        await removeObjects(ours);
        if ((await repo.findImage(db, resourceId, imageId)) === undefined) throw notFound('Gallery image');
        throw conflict('The image was changed by another request at the same time; try again');
      }
      await removeObjects(
        [row.storage_key, row.thumbnail_key].filter(
          (key) => key !== keys.storage_key && key !== keys.thumbnail_key,
        ),
      );
      return { id: imageId, imageUrl: urls.url(keys.storage_key) ?? '', updatedAt };
    },

    /** `imageIds` must list every existing image exactly once (else 400). */
    async reorder(actor: Actor, resourceId: string, imageIds: string[]): Promise<void> {
      await requireEditable(actor, resourceId);
      await db.transaction().execute(async (trx) => {
        if (!(await lockResource(trx, dialect, resourceId))) throw notFound('Resource');
        const images = await repo.listImages(trx, resourceId);
        for (const { id, position } of planReorder(images, imageIds, 'imageIds', 'gallery image')) {
          await repo.updateImage(trx, id, { position });
        }
      });
    },

    /** The others keep a gapless order from 0. */
    async remove(actor: Actor, resourceId: string, imageId: string): Promise<void> {
      await requireEditable(actor, resourceId);
      const removed = await db.transaction().execute(async (trx) => {
        if (!(await lockResource(trx, dialect, resourceId))) throw notFound('Resource');
        const images = await repo.listImages(trx, resourceId);
        const image = images.find((row) => row.id === imageId);
        if (image === undefined) throw notFound('Gallery image');
        await repo.deleteImage(trx, imageId);
        const remaining = images.filter((row) => row.id !== imageId);
        for (const [index, row] of remaining.entries()) {
          if (row.position !== index) await repo.updateImage(trx, row.id, { position: index });
        }
        return image;
      });
      await removeObjects([removed.storage_key, removed.thumbnail_key]);
    },

    collectForResourceDeletion: repo.imageKeysOfResource,
    removeObjects,
  };
}
