import type { ResourceType } from '../../core/db/schema.js';
import type { MediaUrls } from '../../core/media-urls.js';
import { toOwnerView } from '../owners/owner.mapper.js';
import type { OwnerView } from '../owners/owner.mapper.js';
import { parseCatalogRefs } from './catalog-refs.repo.js';
import type { ResourceViewRow } from './resource-views.repo.js';

export type ResourceOwnerView = OwnerView;

const toOwner = (row: ResourceViewRow, urls: MediaUrls): OwnerView =>
  toOwnerView(
    {
      ownerType: row.owner_type,
      ownerId: row.owner_id,
      username: row.owner_username,
      displayName: row.owner_display_name,
      imageKey: row.owner_image_key,
      teamName: row.owner_team_name,
      teamSlug: row.owner_team_slug,
      teamLogoKey: row.owner_team_logo_key,
    },
    urls,
  );

/** A list item: everything but the description. */
export function toResourceListItem(row: ResourceViewRow, urls: MediaUrls) {
  const { categories, tags, gameVersions } = parseCatalogRefs(row.catalog_refs);
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    shortDescription: row.short_description,
    type: row.type,
    status: row.status,
    iconUrl: urls.url(row.icon_key),
    bannerUrl: urls.url(row.banner_key),
    ownerType: row.owner_type,
    ownerId: row.owner_id,
    owner: toOwner(row, urls),
    categories,
    tags,
    gameVersions,
    downloads: row.downloads,
    likeCount: row.like_count,
    favoriteCount: row.favorite_count,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export type ResourceListItemView = ReturnType<typeof toResourceListItem>;

export const toResource = (row: ResourceViewRow, urls: MediaUrls) =>
  Object.assign(toResourceListItem(row, urls), { description: row.description ?? '' });

export type ResourceView = ReturnType<typeof toResource>;

export interface ResourceSummaryRow {
  id: string;
  name: string;
  slug: string;
  short_description: string;
  icon_key: string | null;
  type: ResourceType;
}

export const toResourceSummary = (row: ResourceSummaryRow, urls: MediaUrls) => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  shortDescription: row.short_description,
  iconUrl: urls.url(row.icon_key),
  type: row.type,
});
