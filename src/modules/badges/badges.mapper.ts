import type { BadgeRow } from './badges.repo.js';

/** Badge columns as every badge-bearing row has them (a badge row, or a badge joined to an award). */
export type BadgeColumns = Pick<
  BadgeRow,
  'id' | 'name' | 'slug' | 'description' | 'icon_url' | 'color' | 'is_active' | 'awarded_count' | 'created_at'
>;

export const toBadge = (row: BadgeColumns) => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  description: row.description,
  iconUrl: row.icon_url,
  color: row.color,
  isActive: Boolean(row.is_active),
  awardedCount: row.awarded_count,
  createdAt: row.created_at,
});

export type BadgeView = ReturnType<typeof toBadge>;

export const toCreatedBadge = (row: BadgeRow) => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  createdAt: row.created_at,
});
