// The BadgeReader the users module shows badges through (profiles, search, admin lists).
import type { Kysely } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import { jsonArrayFrom, parseJsonArray, toIsoTimestamp } from '../../core/db/dialect.js';
import type { DB } from '../../core/db/schema.js';
import type { BadgeReader, BadgesColumn } from '../users/badge-reader.js';
import type { ProfileBadgeView } from '../users/users.mapper.js';
import { toProfileBadge } from './awards/awards.mapper.js';
import { listHeldBadges, profileBadgesOfOuterUser } from './awards/awards.repo.js';
import type { ProfileBadgeRow } from './awards/awards.repo.js';

/** The row's user's active badges, newest award first, aggregated into a JSON array (profile reads). */
const column: BadgesColumn = (dialect, eb) => jsonArrayFrom(dialect, profileBadgesOfOuterUser(eb));

/** One query for any number of users: active badges only, newest award first. */
export function createBadgeReader({ db, dialect }: { db: Kysely<DB>; dialect: DialectName }): BadgeReader {
  return {
    async forUsers(userIds) {
      const byUser = new Map<string, ProfileBadgeView[]>();
      for (const row of await listHeldBadges(db, dialect, userIds)) {
        const list = byUser.get(row.user_id);
        if (list === undefined) byUser.set(row.user_id, [toProfileBadge(row)]);
        else list.push(toProfileBadge(row));
      }
      return byUser;
    },
    column,
    parse(value) {
      // Timestamps inside JSON come in the database's own text form (PostgreSQL: +00:00, no Z).
      const rows = parseJsonArray<ProfileBadgeRow>(value);
      for (const row of rows) row.awarded_at = toIsoTimestamp(row.awarded_at);
      return rows.map(toProfileBadge);
    },
  };
}
