import type { Kysely, Selectable, Transaction } from 'kysely';
import type { ApiKeysTable, DB, Role, TeamRole } from '../../core/db/schema.js';

export type ApiKeyRow = Selectable<ApiKeysTable>;
type Executor = Kysely<DB> | Transaction<DB>;

export const listApiKeys = (db: Executor, userId: string): Promise<ApiKeyRow[]> =>
  db
    .selectFrom('api_keys')
    .selectAll()
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .execute();

/** The user's live (not revoked) key, or undefined: another user's key does not exist for them. */
export const findApiKey = (db: Executor, userId: string, keyId: string): Promise<ApiKeyRow | undefined> =>
  db
    .selectFrom('api_keys')
    .selectAll()
    .where('id', '=', keyId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();

export async function countApiKeys(db: Executor, userId: string): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function findUserRole(db: Executor, userId: string): Promise<Role | undefined> {
  const row = await db.selectFrom('users').select('role').where('id', '=', userId).executeTakeFirst();
  return row?.role;
}

/** Whether the team exists, and the user's role in it (null: not a member), in one query. */
export async function findTeamMembership(
  db: Executor,
  teamId: string,
  userId: string,
): Promise<{ exists: boolean; role: TeamRole | null }> {
  const row = await db
    .selectFrom('teams')
    .leftJoin('team_members', (join) =>
      join.onRef('team_members.team_id', '=', 'teams.id').on('team_members.user_id', '=', userId),
    )
    .select('team_members.role')
    .where('teams.id', '=', teamId)
    .executeTakeFirst();
  return { exists: row !== undefined, role: row?.role ?? null };
}

export async function insertApiKey(db: Executor, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

/** Replaces the secret of the user's live key; false when there is no such key. */
export async function replaceSecret(
  db: Executor,
  userId: string,
  keyId: string,
  secret: { key_hash: string; prefix: string },
): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set(secret)
    .where('id', '=', keyId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes the key only when it belongs to userId; false otherwise. */
export async function deleteApiKey(db: Executor, userId: string, keyId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('api_keys')
    .where('id', '=', keyId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
