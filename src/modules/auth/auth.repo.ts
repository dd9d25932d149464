import type { Kysely, Transaction } from 'kysely';
import type { DB, SessionsTable } from '../../core/db/schema.js';

type Executor = Kysely<DB> | Transaction<DB>;

export async function insertSession(db: Executor, row: SessionsTable): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

export async function deleteSession(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', id).execute();
}

/**
 * Revokes every credential of a user (ban). The rows stay so that, while the ban lasts, they are answered with
 * 403 ACCOUNT_BANNED rather than an anonymous-looking 401; lifting the ban does not bring them back.
 */
export async function revokeAllCredentials(db: Executor, userId: string, at: string): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ revoked_at: at })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
  await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function deleteExpiredSessions(db: Executor, now: string): Promise<number> {
  const result = await db.deleteFrom('sessions').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
