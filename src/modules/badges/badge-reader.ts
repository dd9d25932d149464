// The BadgeReader the users module shows badges through (profiles, search, admin lists).
import type { Kysely } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import type { DB } from '../../core/db/schema.js';
import type { BadgeReader } from '../users/badge-reader.js';
import type { ProfileBadgeView } from '../users/users.mapper.js';
import { toProfileBadge } from './awards/awards.mapper.js';
import { listHeldBadges } from './awards/awards.repo.js';

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
  };
}
