import type { ProfileBadgeView } from '../../users/users.mapper.js';
import { toBadge } from '../badges.mapper.js';
import type { HeldBadgeRow, ProfileBadgeRow, UserBadgeRow } from './awards.repo.js';

export const toUserBadge = (row: HeldBadgeRow) =>
  // Object.assign onto the fresh badge: a spread followed by properties is V8's slow path on Node 20.
  Object.assign(toBadge(row), {
    awardedAt: row.awarded_at,
    awardedBy:
      row.awarded_by !== null && row.awarded_by_username !== null
        ? { id: row.awarded_by, username: row.awarded_by_username }
        : null,
    reason: row.reason,
  });

export const toProfileBadge = (row: ProfileBadgeRow): ProfileBadgeView => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  description: row.description,
  iconUrl: row.icon_url,
  color: row.color,
  awardedAt: row.awarded_at,
});

export const toAward = (row: UserBadgeRow) => ({
  id: row.id,
  userId: row.user_id,
  badgeId: row.badge_id,
  awardedAt: row.awarded_at,
});
