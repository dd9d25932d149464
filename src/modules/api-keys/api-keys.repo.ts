import type { Kysely, Selectable, Transaction } from 'kysely';
import type { ApiKeysTable, DB } from '../../core/db/schema.js';

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

export async function countApiKeys(db: Executor, userId: string): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function insertApiKey(db: Executor, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
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
