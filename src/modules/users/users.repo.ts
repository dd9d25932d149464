import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
import { swapImageKey } from '../../core/db/image-columns.js';
import type { DialectName } from '../../core/db/database.js';
import { containsInsensitive, jsonArrayFrom } from '../../core/db/dialect.js';
import { prepared } from '../../core/db/prepared.js';
import type { DB, Role, UsersTable, UserStatus } from '../../core/db/schema.js';

export type UserRow = Selectable<UsersTable>;
type Executor = Kysely<DB> | Transaction<DB>;

export const findUserById = (db: Executor, id: string): Promise<UserRow | undefined> =>
  db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();

export const findUserByUsername = (db: Executor, username: string): Promise<UserRow | undefined> =>
  db.selectFrom('users').selectAll().where('username_key', '=', username.toLowerCase()).executeTakeFirst();

export const findUserByLogin = (db: Executor, login: string): Promise<UserRow | undefined> =>
  db
    .selectFrom('users')
    .selectAll()
    .where((eb) =>
      eb.or([eb('username_key', '=', login.toLowerCase()), eb('email', '=', login.toLowerCase())]),
    )
    .executeTakeFirst();

export const findUsersByIds = (db: Executor, ids: readonly string[]): Promise<UserRow[]> =>
  ids.length === 0
    ? Promise.resolve([])
    : db.selectFrom('users').selectAll().where('id', 'in', ids).execute();

export async function insertUser(db: Executor, row: Insertable<UsersTable>): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function updateUser(db: Executor, id: string, patch: Updateable<UsersTable>): Promise<void> {
  await db.updateTable('users').set(patch).where('id', '=', id).execute();
}

/** Compare-and-set of an image column: false when the row no longer holds `expected`. */
export const swapUserImage = (
  db: Executor,
  id: string,
  column: 'image_key' | 'banner_key',
  expected: string | null,
  next: string | null,
  at: string,
): Promise<boolean> => swapImageKey(db, 'users', id, column, expected, next, at);

/** Username or display name contains q (case-insensitive, wildcards literal); most-followed first. */
export function searchUsers(
  db: Executor,
  dialect: DialectName,
  q: string,
  limit: number,
): Promise<UserRow[]> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('status', '!=', 'BANNED')
    .where((eb) =>
      eb.or([
        containsInsensitive(dialect, eb.ref('username'), q),
        containsInsensitive(dialect, eb.ref('display_name'), q),
      ]),
    )
    .orderBy('follower_count', 'desc')
    .orderBy('username_key')
    .limit(limit)
    .execute();
}

export interface AdminUserFilter {
  search?: string;
  role?: Role;
  status?: UserStatus;
}

function filtered(db: Executor, dialect: DialectName, filter: AdminUserFilter) {
  let query = db.selectFrom('users');
  if (filter.role !== undefined) query = query.where('role', '=', filter.role);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.search !== undefined) {
    const needle = filter.search;
    query = query.where((eb) =>
      eb.or([
        containsInsensitive(dialect, eb.ref('username'), needle),
        containsInsensitive(dialect, eb.ref('email'), needle),
        containsInsensitive(dialect, eb.ref('display_name'), needle),
      ]),
    );
  }
  return query;
}

export function listUsersForAdmin(
  db: Executor,
  dialect: DialectName,
  filter: AdminUserFilter,
  limit: number,
  offset: number,
): Promise<UserRow[]> {
  return filtered(db, dialect, filter)
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

/** Admin-only screen with filters: a filtered count is acceptable here (low traffic, indexed columns). */
export async function countUsersForAdmin(
  db: Executor,
  dialect: DialectName,
  filter: AdminUserFilter,
): Promise<number> {
  const row = await filtered(db, dialect, filter)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export interface ProfileLinkJson {
  id: string;
  platform: string;
  url: string;
  position: number;
}

export type ProfileRow = UserRow & { social_links: unknown; is_following: number | boolean };

function profileQuery(
  db: Executor,
  dialect: DialectName,
  by: 'id' | 'username_key',
  viewer: boolean,
  ...args: string[]
) {
  const [key, viewerId] = args as [string, string | undefined];
  return db
    .selectFrom('users')
    .selectAll('users')
    .select((eb) => [
      jsonArrayFrom(
        dialect,
        eb
          .selectFrom('social_links')
          .select(['social_links.id', 'social_links.platform', 'social_links.url', 'social_links.position'])
          .where('social_links.owner_type', '=', 'USER')
          .whereRef('social_links.owner_id', '=', 'users.id')
          .orderBy('social_links.position'),
      ).as('social_links'),
      viewer
        ? eb
            .exists(
              eb
                .selectFrom('follows')
                .select('follows.follower_id')
                .where('follows.follower_id', '=', viewerId!)
                .whereRef('follows.following_id', '=', 'users.id'),
            )
            .as('is_following')
        : eb.lit(false).as('is_following'),
    ])
    .where(`users.${by}`, '=', key);
}

const profileQueries = {
  id: prepared<ProfileRow, [string]>(1, (db, dialect, key) => profileQuery(db, dialect, 'id', false, key!)),
  idAsViewer: prepared<ProfileRow, [string, string]>(2, (db, dialect, ...args) =>
    profileQuery(db, dialect, 'id', true, ...args),
  ),
  username: prepared<ProfileRow, [string]>(1, (db, dialect, key) =>
    profileQuery(db, dialect, 'username_key', false, key!),
  ),
  usernameAsViewer: prepared<ProfileRow, [string, string]>(2, (db, dialect, ...args) =>
    profileQuery(db, dialect, 'username_key', true, ...args),
  ),
};

/**
 * A public profile in one query: the user, their ordered social links (as a JSON array) and whether the viewer
 * follows them. The profile is the hottest read of the users area, so the query is prepared once.
 */
export async function findProfileRow(
  db: Kysely<DB>,
  dialect: DialectName,
  by: { id: string } | { username: string },
  viewerId: string | undefined,
): Promise<ProfileRow | undefined> {
  const rows =
    'id' in by
      ? viewerId === undefined
        ? await profileQueries.id(db, dialect, by.id)
        : await profileQueries.idAsViewer(db, dialect, by.id, viewerId)
      : viewerId === undefined
        ? await profileQueries.username(db, dialect, by.username.toLowerCase())
        : await profileQueries.usernameAsViewer(db, dialect, by.username.toLowerCase(), viewerId);
  return rows[0];
}

/** Ends suspensions whose time is up, so status and the admin filters tell the truth. */
export async function liftExpiredSuspensions(db: Executor, now: string): Promise<number> {
  const result = await db
    .updateTable('users')
    .set({ status: 'ACTIVE', suspended_until: null, updated_at: now })
    .where('status', '=', 'SUSPENDED')
    .where('suspended_until', '<=', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
