import type { MediaUrls } from '../../core/media-urls.js';
import type { GalleryImageRow } from './galleries.repo.js';

export const toGalleryImage = (row: GalleryImageRow, urls: MediaUrls) => ({
  id: row.id,
  resourceId: row.resource_id,
  imageUrl: urls.url(row.storage_key) ?? '',
  thumbnailUrl: urls.url(row.thumbnail_key) ?? '',
  caption: row.caption,
  altText: row.alt_text,
  order: row.position,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});
export type GalleryImageView = ReturnType<typeof toGalleryImage>;
