import { sql } from 'kysely';
import type { Insertable, Kysely, Selectable, SqlBool, Transaction, Updateable } from 'kysely';
import { swapImageKey } from '../../core/db/image-columns.js';
import { moveCounter, readCounterSum } from '../../core/db/counters.js';
import type { DialectName } from '../../core/db/database.js';
import { countMatches, documentMatches, queryText, relevanceTier } from '../search/directory-match.js';
import { TEAM_INDEX } from '../search/team-documents.js';
import type { SearchQuery } from '../search/text.js';
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

export function listTeams(db: Executor, limit: number, offset: number): Promise<TeamRow[]> {
  return db
    .selectFrom('teams')
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

/**
 * Teams matching a full-text search (every word, the last as a prefix), by relevance tier (search/directory-match
 * .ts: the exact name, all words in the name, in the name and slug, anywhere incl. the description), then the
 * most members, then id.
 */
export function searchTeams(
  db: Executor,
  dialect: DialectName,
  search: SearchQuery,
  limit: number,
  offset: number,
): Promise<TeamRow[]> {
  const exact = sql<SqlBool>`${sql.ref('team_search.name_text')} = ${queryText(search)}`;
  return db
    .selectFrom('team_search')
    .innerJoin('teams', 'teams.id', 'team_search.team_id')
    .selectAll('teams')
    .where(documentMatches(dialect, TEAM_INDEX, 'team_search', search))
    .orderBy(relevanceTier(dialect, TEAM_INDEX, 'team_search', search, exact))
    .orderBy('teams.member_count', 'desc')
    .orderBy('teams.id')
    .limit(limit)
    .offset(offset)
    .execute();
}

/** The number of teams matching a search: the full-text match count (every team has a document). */
export const countTeamsMatching = (
  db: Executor,
  dialect: DialectName,
  search: SearchQuery,
): Promise<number> => countMatches(db, dialect, TEAM_INDEX, search);

/** All teams, from the maintained counter (DESIGN §5: no whole-table count per request). */
export async function readTeamTotal(db: Executor): Promise<number> {
  return readCounterSum(db, [TEAM_TOTAL]);
}

export async function moveTeamTotal(db: Executor, delta: 1 | -1): Promise<void> {
  await moveCounter(db, TEAM_TOTAL, delta);
}
