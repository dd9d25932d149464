import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
import { swapImageKey } from '../../core/db/image-columns.js';
import { moveCounter, readCounterSum } from '../../core/db/counters.js';
import type { DialectName } from '../../core/db/database.js';
import { containsInsensitive } from '../../core/db/dialect.js';
import type { DB, TeamsTable } from '../../core/db/schema.js';

export type TeamRow = Selectable<TeamsTable>;
type Executor = Kysely<DB> | Transaction<DB>;

/** The `counters` row that holds the number of teams (GET /teams `total` without a search). */
const TEAM_TOTAL = 'teams';

export const findTeamById = (db: Executor, id: string): Promise<TeamRow | undefined> =>
  db.selectFrom('teams').selectAll().where('id', '=', id).executeTakeFirst();

export const findTeamBySlug = (db: Executor, slug: string): Promise<TeamRow | undefined> =>
  db.selectFrom('teams').selectAll().where('slug', '=', slug).executeTakeFirst();

export async function slugExists(db: Executor, slug: string): Promise<boolean> {
  return (
    (await db.selectFrom('teams').select('id').where('slug', '=', slug).executeTakeFirst()) !== undefined
  );
}

export async function insertTeam(db: Executor, row: Insertable<TeamsTable>): Promise<void> {
  await db.insertInto('teams').values(row).execute();
}

export async function updateTeam(db: Executor, id: string, patch: Updateable<TeamsTable>): Promise<boolean> {
  const result = await db.updateTable('teams').set(patch).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Swaps an image key only if it is still `expected`: of two concurrent uploads the second one loses instead of
 * orphaning the object the first one stored.
 */
export const swapTeamImage = (
  db: Executor,
  id: string,
  column: 'logo_key' | 'banner_key',
  expected: string | null,
  next: string | null,
  at: string,
): Promise<boolean> => swapImageKey(db, 'teams', id, column, expected, next, at);

/**
 * Deletes the team only while it owns no resources or servers (the condition is re-checked by the DELETE itself,
 * so a resource created concurrently cannot be left without its team). Members and invitations go with it
 * through ON DELETE CASCADE, which also covers a membership inserted concurrently.
 */
export async function deleteEmptyTeam(db: Executor, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('teams')
    .where('id', '=', id)
    .where('resource_count', '=', 0)
    .where('server_count', '=', 0)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function moveMemberCount(db: Executor, teamId: string, delta: 1 | -1): Promise<void> {
  await db
    .updateTable('teams')
    .set((eb) => ({ member_count: eb('member_count', '+', delta) }))
    .where('id', '=', teamId)
    .execute();
}

/** Points owner_id at the new OWNER, provided it still names the previous one (a concurrent transfer loses). */
export async function moveOwner(
  db: Executor,
  teamId: string,
  from: string,
  to: string,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('teams')
    .set({ owner_id: to, updated_at: at })
    .where('id', '=', teamId)
    .where('owner_id', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export function listTeams(
  db: Executor,
  dialect: DialectName,
  search: string | undefined,
  limit: number,
  offset: number,
): Promise<TeamRow[]> {
  let query = db.selectFrom('teams').selectAll();
  if (search !== undefined) query = query.where((eb) => containsInsensitive(dialect, eb.ref('name'), search));
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute();
}

/** A filtered count: only used with a search, where the matching set is what the caller asked about. */
export async function countTeamsMatching(
  db: Executor,
  dialect: DialectName,
  search: string,
): Promise<number> {
  const row = await db
    .selectFrom('teams')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where((eb) => containsInsensitive(dialect, eb.ref('name'), search))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** All teams, from the maintained counter (DESIGN §5: no whole-table count per request). */
export async function readTeamTotal(db: Executor): Promise<number> {
  return readCounterSum(db, [TEAM_TOTAL]);
}

export async function moveTeamTotal(db: Executor, delta: 1 | -1): Promise<void> {
  await moveCounter(db, TEAM_TOTAL, delta);
}
