import type { ServerCategoryRow, ServerTagRow } from './catalogs.repo.js';

export const toServerTag = (row: ServerTagRow) => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  description: row.description,
  usageCount: row.usage_count,
  createdAt: row.created_at,
});

export const toServerCategory = (row: ServerCategoryRow) => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  description: row.description,
  iconUrl: row.icon_url,
  usageCount: row.usage_count,
  order: row.position,
  createdAt: row.created_at,
});
