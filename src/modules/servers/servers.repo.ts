// Writes and plain reads of the servers table, the team server counter and the approved-servers total.
import { swapImageKey } from '../../core/db/image-columns.js';
import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
import { moveCounter, readCounterSum } from '../../core/db/counters.js';
import type { DialectName } from '../../core/db/database.js';
import { prepared } from '../../core/db/prepared.js';
import type { DB, ServersTable, ServerStatus } from '../../core/db/schema.js';

export type ServerRow = Selectable<ServersTable>;
type Executor = Kysely<DB> | Transaction<DB>;

/** The `counters` row holding the number of APPROVED servers (GET /servers `total` without filters). */
const APPROVED_TOTAL = 'approved_servers';
const DIRECTORY_VERSION = 'server_directory_version';

export const findServerRow = (db: Executor, id: string): Promise<ServerRow | undefined> =>
  db.selectFrom('servers').selectAll().where('id', '=', id).executeTakeFirst();

export async function slugExists(db: Executor, slug: string): Promise<boolean> {
  const row = await db.selectFrom('servers').select('id').where('slug', '=', slug).executeTakeFirst();
  return row !== undefined;
}

export async function insertServer(db: Executor, row: Insertable<ServersTable>): Promise<void> {
  await db.insertInto('servers').values(row).execute();
}

export async function updateServer(db: Executor, id: string, patch: Updateable<ServersTable>): Promise<void> {
  await db.updateTable('servers').set(patch).where('id', '=', id).execute();
}

/**
 * Swaps an image key only if it is still `expected`: of two concurrent uploads the second one loses instead of
 * orphaning the object the first one stored.
 */
export const swapServerImage = (
  db: Executor,
  id: string,
  column: 'logo_key' | 'banner_key',
  expected: string | null,
  next: string | null,
  at: string,
): Promise<boolean> => swapImageKey(db, 'servers', id, column, expected, next, at);

/** Moves the status only if it still is `from`, so two concurrent moderators cannot both act on one status. */
export async function moveStatus(
  db: Executor,
  id: string,
  from: ServerStatus,
  patch: Updateable<ServersTable> & { status: ServerStatus },
): Promise<boolean> {
  const result = await db
    .updateTable('servers')
    .set(patch)
    .where('id', '=', id)
    .where('status', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function moveOwner(
  db: Executor,
  id: string,
  to: { owner_type: 'USER' | 'TEAM'; owner_id: string },
  at: string,
): Promise<void> {
  await db
    .updateTable('servers')
    .set({ ...to, updated_at: at })
    .where('id', '=', id)
    .execute();
}

export async function deleteServerRow(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('servers').where('id', '=', id).execute();
}

/** Moves teams.server_count; false when the team no longer exists. */
export async function moveTeamServerCount(db: Executor, teamId: string, delta: 1 | -1): Promise<boolean> {
  const result = await db
    .updateTable('teams')
    .set((eb) => ({ server_count: eb('server_count', '+', delta) }))
    .where('id', '=', teamId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function readApprovedTotal(db: Executor): Promise<number> {
  return readCounterSum(db, [APPROVED_TOTAL]);
}

export async function moveApprovedTotal(db: Executor, delta: 1 | -1): Promise<void> {
  await moveCounter(db, APPROVED_TOTAL, delta);
}

/**
 * Moves the version of the public directory: every write that changes what GET /servers shows calls it, so a
 * cached page of an older version is never served again (by any instance: the version lives in the database).
 */
export async function bumpDirectoryVersion(db: Executor): Promise<void> {
  await db
    .updateTable('counters')
    .set((eb) => ({ value: eb('value', '+', 1) }))
    .where('name', '=', DIRECTORY_VERSION)
    .execute();
}

const directoryVersion = prepared<{ value: number }, []>(0, (db) =>
  db.selectFrom('counters').select('value').where('name', '=', DIRECTORY_VERSION),
);

/** Read on every GET /servers, so it is prepared once. */
export async function readDirectoryVersion(db: Kysely<DB>, dialect: DialectName): Promise<number> {
  const [row] = await directoryVersion(db, dialect);
  return Number(row?.value ?? 0);
}

export async function findUserStanding(db: Executor, userId: string) {
  return db.selectFrom('users').select(['id', 'status']).where('id', '=', userId).executeTakeFirst();
}

export async function teamExists(db: Executor, teamId: string): Promise<boolean> {
  return (
    (await db.selectFrom('teams').select('id').where('id', '=', teamId).executeTakeFirst()) !== undefined
  );
}
