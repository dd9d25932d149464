import type { ExpressionBuilder, Kysely, Selectable, Transaction } from 'kysely';
import type { DialectName } from '../../../core/db/database.js';
import { prepared } from '../../../core/db/prepared.js';
import type { DB, UserBadgesTable } from '../../../core/db/schema.js';
import type { BadgeColumns } from '../badges.mapper.js';

export type UserBadgeRow = Selectable<UserBadgesTable>;
type Executor = Kysely<DB> | Transaction<DB>;

export async function insertUserBadge(db: Executor, row: UserBadgeRow): Promise<void> {
  await db.insertInto('user_badges').values(row).execute();
}

export const findUserBadge = (
  db: Executor,
  badgeId: string,
  userId: string,
): Promise<Pick<UserBadgeRow, 'id'> | undefined> =>
  db
    .selectFrom('user_badges')
    .select('id')
    .where('badge_id', '=', badgeId)
    .where('user_id', '=', userId)
    .executeTakeFirst();

/**
 * awarded_count + 1, only while the badge exists and is active: false otherwise. In the award's transaction,
 * so a badge deactivated at the same moment is never awarded.
 */
export async function countAwardIfActive(db: Executor, badgeId: string): Promise<boolean> {
  const result = await db
    .updateTable('badges')
    .set((eb) => ({ awarded_count: eb('awarded_count', '+', 1) }))
    .where('id', '=', badgeId)
    .where('is_active', '=', true)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function uncountAward(db: Executor, badgeId: string): Promise<void> {
  await db
    .updateTable('badges')
    .set((eb) => ({ awarded_count: eb('awarded_count', '-', 1) }))
    .where('id', '=', badgeId)
    .execute();
}

/** False when the user did not hold the badge (or the badge does not exist). */
export async function deleteUserBadge(db: Executor, badgeId: string, userId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('user_badges')
    .where('badge_id', '=', badgeId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export interface HeldBadgeRow extends BadgeColumns {
  user_id: string;
  awarded_at: string;
  awarded_by: string | null;
  awarded_by_username: string | null;
  reason: string | null;
}

/** Active badges only: a deactivated badge is hidden wherever awards are shown. */
function heldBadges(db: Executor) {
  return db
    .selectFrom('user_badges')
    .innerJoin('badges', 'badges.id', 'user_badges.badge_id')
    .leftJoin('users as awarder', 'awarder.id', 'user_badges.awarded_by')
    .select([
      'badges.id',
      'badges.name',
      'badges.slug',
      'badges.description',
      'badges.icon_url',
      'badges.color',
      'badges.is_active',
      'badges.awarded_count',
      'badges.created_at',
      'user_badges.user_id',
      'user_badges.awarded_at',
      'user_badges.awarded_by',
      'awarder.username as awarded_by_username',
      'user_badges.reason',
    ])
    .where('badges.is_active', '=', true)
    .orderBy('user_badges.awarded_at', 'desc')
    .orderBy('user_badges.id', 'desc');
}

/** What a profile shows of each badge (users/users.mapper.ts ProfileBadgeView), as rows. */
export type ProfileBadgeRow = Pick<
  HeldBadgeRow,
  'id' | 'name' | 'slug' | 'description' | 'icon_url' | 'color' | 'awarded_at'
>;

/**
 * The profile fields of the active badges of the outer query's user (`users.id`), newest award first: a
 * subquery that profile reads aggregate into one column, so a profile and its badges take one round trip.
 */
export function profileBadgesOfOuterUser(eb: ExpressionBuilder<DB, 'users'>) {
  return eb
    .selectFrom('user_badges')
    .innerJoin('badges', 'badges.id', 'user_badges.badge_id')
    .select([
      'badges.id',
      'badges.name',
      'badges.slug',
      'badges.description',
      'badges.icon_url',
      'badges.color',
      'user_badges.awarded_at',
    ])
    .whereRef('user_badges.user_id', '=', 'users.id')
    .where('badges.is_active', '=', true)
    .orderBy('user_badges.awarded_at', 'desc')
    .orderBy('user_badges.id', 'desc');
}

/** One user's badges, newest award first; prepared, since every profile read asks for them. */
const heldBadgesOfUser = prepared<HeldBadgeRow, [string]>(1, (db, _dialect, userId) =>
  heldBadges(db).where('user_badges.user_id', '=', userId!),
);

/** The active badges of several users in one query, each user's newest award first. */
export function listHeldBadges(
  db: Kysely<DB>,
  dialect: DialectName,
  userIds: readonly string[],
): Promise<HeldBadgeRow[]> {
  if (userIds.length === 0) return Promise.resolve([]);
  if (userIds.length === 1) return heldBadgesOfUser(db, dialect, userIds[0]!);
  return heldBadges(db).where('user_badges.user_id', 'in', userIds).execute();
}
