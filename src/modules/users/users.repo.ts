import { sql } from 'kysely';
import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
import { swapImageKey } from '../../core/db/image-columns.js';
import type { DialectName } from '../../core/db/database.js';
import { jsonArrayFrom } from '../../core/db/dialect.js';
import { prepared } from '../../core/db/prepared.js';
import type { DB, Role, UsersTable, UserStatus } from '../../core/db/schema.js';
import type { BadgesColumn } from './badge-reader.js';
import { adminSearchIds } from './user-search.repo.js';

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

export interface AdminUserFilter {
  search?: string;
  role?: Role;
  status?: UserStatus;
}

function filtered(db: Executor, dialect: DialectName, filter: AdminUserFilter) {
  let query = db.selectFrom('users');
  if (filter.role !== undefined) query = query.where('role', '=', filter.role);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  // Full text on username and display name, or an email prefix (user-search.repo.ts).
  if (filter.search !== undefined)
    query = query.where('id', 'in', adminSearchIds(db, dialect, filter.search));
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

export type ProfileRow = UserRow & {
  social_links: unknown;
  is_following: number | boolean;
  /** The badges column (badge-reader.ts): read with the reader's parse. */
  badges: unknown;
};

/** The private profile's row: the user and their badges column. */
export type PrivateProfileRow = UserRow & { badges: unknown };

/** Without a badges reader (tests of the bare query): the column is null. */
const noBadgesColumn: BadgesColumn = () => sql`null`;

function profileQuery(
  db: Executor,
  dialect: DialectName,
  badges: BadgesColumn,
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
      badges(dialect, eb).as('badges'),
    ])
    .where(`users.${by}`, '=', key);
}

/** The profile reads of one badges column, each prepared once per dialect. */
function profileQueriesFor(badges: BadgesColumn) {
  return {
    id: prepared<ProfileRow, [string]>(1, (db, dialect, key) =>
      profileQuery(db, dialect, badges, 'id', false, key!),
    ),
    idAsViewer: prepared<ProfileRow, [string, string]>(2, (db, dialect, ...args) =>
      profileQuery(db, dialect, badges, 'id', true, ...args),
    ),
    username: prepared<ProfileRow, [string]>(1, (db, dialect, key) =>
      profileQuery(db, dialect, badges, 'username_key', false, key!),
    ),
    usernameAsViewer: prepared<ProfileRow, [string, string]>(2, (db, dialect, ...args) =>
      profileQuery(db, dialect, badges, 'username_key', true, ...args),
    ),
    private: prepared<PrivateProfileRow, [string]>(1, (db, dialect, id) =>
      db
        .selectFrom('users')
        .selectAll('users')
        .select((eb) => badges(dialect, eb).as('badges'))
        .where('users.id', '=', id!),
    ),
  };
}

/** One set of prepared queries per badges column (in practice: one per process). */
const queriesByColumn = new WeakMap<BadgesColumn, ReturnType<typeof profileQueriesFor>>();

function profileQueries(badges: BadgesColumn) {
  let queries = queriesByColumn.get(badges);
  if (queries === undefined) {
    queries = profileQueriesFor(badges);
    queriesByColumn.set(badges, queries);
  }
  return queries;
}

/**
 * A public profile in one query: the user, their ordered social links (as a JSON array), their badges (the
 * reader's column) and whether the viewer follows them. The profile is the hottest read of the users area, so
 * the query is prepared once.
 */
export async function findProfileRow(
  db: Kysely<DB>,
  dialect: DialectName,
  by: { id: string } | { username: string },
  viewerId: string | undefined,
  badges: BadgesColumn = noBadgesColumn,
): Promise<ProfileRow | undefined> {
  const queries = profileQueries(badges);
  const rows =
    'id' in by
      ? viewerId === undefined
        ? await queries.id(db, dialect, by.id)
        : await queries.idAsViewer(db, dialect, by.id, viewerId)
      : viewerId === undefined
        ? await queries.username(db, dialect, by.username.toLowerCase())
        : await queries.usernameAsViewer(db, dialect, by.username.toLowerCase(), viewerId);
  return rows[0];
}

/** GET /users/me: the user and their badges in one prepared query. */
export async function findPrivateProfileRow(
  db: Kysely<DB>,
  dialect: DialectName,
  id: string,
  badges: BadgesColumn,
): Promise<PrivateProfileRow | undefined> {
  return (await profileQueries(badges).private(db, dialect, id))[0];
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
