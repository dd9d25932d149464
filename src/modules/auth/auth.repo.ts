import type { Kysely, Transaction } from 'kysely';
import type { DB, SessionsTable } from '../../core/db/schema.js';

type Executor = Kysely<DB> | Transaction<DB>;

export async function insertSession(db: Executor, row: SessionsTable): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

export async function deleteSession(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', id).execute();
}

/** Revokes every credential of a user (ban). */
export async function revokeAllCredentials(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('sessions').where('user_id', '=', userId).execute();
  await db.deleteFrom('api_keys').where('user_id', '=', userId).execute();
}

export async function deleteExpiredSessions(db: Executor, now: string): Promise<number> {
  const result = await db.deleteFrom('sessions').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
