// The idempotency_keys table: claim a key, complete it with the answer, release it, purge old ones.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

export interface KeyRow {
  fingerprint: string;
  status_code: number | null;
  location: string | null;
  body_sealed: string | null;
  created_at: string;
}

/** Inserts the claim; false when (caller, key) already has a row. */
export async function claimKey(
  db: Kysely<DB>,
  row: { caller: string; key: string; fingerprint: string; created_at: string },
): Promise<boolean> {
  const result = await db
    .insertInto('idempotency_keys')
    .values({ ...row, status_code: null, location: null, body_sealed: null })
    .onConflict((conflict) => conflict.columns(['caller', 'key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function findKey(db: Kysely<DB>, caller: string, key: string): Promise<KeyRow | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .select(['fingerprint', 'status_code', 'location', 'body_sealed', 'created_at'])
    .where('caller', '=', caller)
    .where('key', '=', key)
    .executeTakeFirst();
}

export async function completeKey(
  db: Kysely<DB>,
  caller: string,
  key: string,
  answer: { status_code: number; location: string | null; body_sealed: string },
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set(answer)
    .where('caller', '=', caller)
    .where('key', '=', key)
    .execute();
}

/** Deletes the row, only if it is still the one created at `createdAt` (never a newer claim). */
export async function releaseKey(
  db: Kysely<DB>,
  caller: string,
  key: string,
  createdAt: string,
): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('caller', '=', caller)
    .where('key', '=', key)
    .where('created_at', '=', createdAt)
    .execute();
}

export async function purgeKeysBefore(db: Kysely<DB>, before: string): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
