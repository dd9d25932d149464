import type { MediaUrls } from '../../core/media-urls.js';
import type { SocialLinkView } from '../social-links/social-links.mapper.js';
import type { UserRow } from './users.repo.js';

export interface ProfileBadgeView {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  iconUrl: string | null;
  color: string | null;
  awardedAt: string;
}

export interface UserSummaryView {
  id: string;
  username: string;
  displayName: string | null;
  image: string;
}

export const toUserSummary = (row: UserRow, urls: MediaUrls): UserSummaryView => ({
  id: row.id,
  username: row.username,
  displayName: row.display_name,
  image: urls.avatar(row.image_key),
});

function profileFields(row: UserRow, urls: MediaUrls, badges: ProfileBadgeView[]) {
  return {
    ...toUserSummary(row, urls),
    bio: row.bio,
    location: row.location,
    website: row.website,
    bannerUrl: urls.url(row.banner_key),
    badges,
    followerCount: row.follower_count,
    followingCount: row.following_count,
    createdAt: row.created_at,
  };
}

export const toPrivateProfile = (row: UserRow, urls: MediaUrls, badges: ProfileBadgeView[]) => ({
  ...profileFields(row, urls, badges),
  email: row.email,
  role: row.role,
  status: row.status,
  suspendedUntil: row.suspended_until,
});

export const toPublicProfile = (
  row: UserRow,
  urls: MediaUrls,
  badges: ProfileBadgeView[],
  socialLinks: SocialLinkView[],
  isFollowing: boolean,
) => ({
  ...profileFields(row, urls, badges),
  socialLinks,
  isFollowing,
});
