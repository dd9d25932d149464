import type { MediaUrls } from '../../../core/media-urls.js';
import { toResourceSummary } from '../resources.mapper.js';
import type { FavoriteRow, LikeRow } from './social.repo.js';

export const toLike = (row: LikeRow, urls: MediaUrls) => ({
  id: row.id,
  userId: row.user_id,
  user: {
    id: row.user_id,
    username: row.username,
    displayName: row.display_name,
    image: urls.avatar(row.image_key),
  },
  createdAt: row.created_at,
});

export const toFavorite = (row: FavoriteRow, urls: MediaUrls) => ({
  id: row.id,
  resourceId: row.resource_id,
  resource: toResourceSummary(
    {
      id: row.resource_id,
      name: row.name,
      slug: row.slug,
      short_description: row.short_description,
      icon_key: row.icon_key,
      type: row.type,
    },
    urls,
  ),
  createdAt: row.created_at,
});
