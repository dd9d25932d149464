// How the owner of a resource or server appears in responses: a user summary or a team summary.
import type { MediaUrls } from '../../core/media-urls.js';

export interface OwnerView {
  type: 'USER' | 'TEAM';
  id: string;
  username?: string;
  displayName?: string | null;
  image?: string;
  name?: string;
  slug?: string;
  logoUrl?: string | null;
}

/** The owner columns a read joins in (user columns for USER owners, team columns for TEAM owners). */
export interface OwnerColumns {
  ownerType: string;
  ownerId: string;
  username: string | null;
  displayName: string | null;
  imageKey: string | null;
  teamName: string | null;
  teamSlug: string | null;
  teamLogoKey: string | null;
}

export function toOwnerView(owner: OwnerColumns, urls: MediaUrls): OwnerView {
  if (owner.ownerType === 'TEAM') {
    return {
      type: 'TEAM',
      id: owner.ownerId,
      name: owner.teamName ?? '',
      slug: owner.teamSlug ?? '',
      logoUrl: urls.url(owner.teamLogoKey),
    };
  }
  return {
    type: 'USER',
    id: owner.ownerId,
    username: owner.username ?? '',
    displayName: owner.displayName,
    image: urls.avatar(owner.imageKey),
  };
}
