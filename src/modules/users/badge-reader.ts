// Profiles show badges; the badges module owns them. Users depend only on this reader.
import type { ProfileBadgeView } from './users.mapper.js';

export interface BadgeReader {
  /** Active badges of each user, newest award first. Users without badges are absent from the map. */
  forUsers(userIds: readonly string[]): Promise<Map<string, ProfileBadgeView[]>>;
}

/** Until the badges module is installed, nobody has badges. */
export const noBadges: BadgeReader = { forUsers: () => Promise.resolve(new Map()) };
