import type { GameVersionRow } from './game-versions.repo.js';
import type { CategoryRow } from './resource-categories.repo.js';
import type { ResourceTagRow } from './resource-tags.repo.js';

export const toResourceTag = (row: Omit<ResourceTagRow, 'updated_at'>) => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  description: row.description,
  usageCount: row.usage_count,
  createdAt: row.created_at,
});

export const toCategory = (row: CategoryRow) => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  description: row.description,
  resourceType: row.resource_type,
  usageCount: row.usage_count,
  order: row.position,
  createdAt: row.created_at,
});

export const toGameVersion = (row: GameVersionRow) => ({
  id: row.id,
  name: row.name,
  releaseOrder: row.release_order,
  releasedAt: row.released_at,
  createdAt: row.created_at,
});
