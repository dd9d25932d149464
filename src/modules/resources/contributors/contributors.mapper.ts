import type { MediaUrls } from '../../../core/media-urls.js';
import type { ContributorWithUserRow } from './contributors.repo.js';

export const toContributor = (row: ContributorWithUserRow, urls: MediaUrls) => ({
  id: row.id,
  userId: row.user_id,
  resourceId: row.resource_id,
  role: row.role,
  user: {
    id: row.user_id,
    username: row.username,
    displayName: row.display_name,
    image: urls.avatar(row.image_key),
  },
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export type ContributorView = ReturnType<typeof toContributor>;
