import type { Kysely } from 'kysely';
import type { DB, Role, UserStatus } from '../db/schema.js';

export interface CredentialOwner {
  credentialId: string;
  userId: string;
  role: Role;
  status: UserStatus;
  suspendedUntil: string | null;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export function findApiKeyOwner(db: Kysely<DB>, keyHash: string): Promise<CredentialOwner | undefined> {
  return db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .select([
      'api_keys.id as credentialId',
      'users.id as userId',
      'users.role as role',
      'users.status as status',
      'users.suspended_until as suspendedUntil',
      'api_keys.expires_at as expiresAt',
      'api_keys.last_used_at as lastUsedAt',
      'api_keys.revoked_at as revokedAt',
    ])
    .where('api_keys.key_hash', '=', keyHash)
    .executeTakeFirst();
}

export function findSessionOwner(db: Kysely<DB>, tokenHash: string): Promise<CredentialOwner | undefined> {
  return db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select([
      'sessions.id as credentialId',
      'users.id as userId',
      'users.role as role',
      'users.status as status',
      'users.suspended_until as suspendedUntil',
      'sessions.expires_at as expiresAt',
      'sessions.last_used_at as lastUsedAt',
      'sessions.revoked_at as revokedAt',
    ])
    .where('sessions.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function touchCredential(
  db: Kysely<DB>,
  kind: 'api_key' | 'session',
  id: string,
  at: string,
): Promise<void> {
  const table = kind === 'api_key' ? 'api_keys' : 'sessions';
  await db.updateTable(table).set({ last_used_at: at }).where('id', '=', id).execute();
}
