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
  /** API keys only: stored scopes and bound team (sessions carry every scope and no team). */
  scopes: string | null;
  teamId: string | null;
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
      'api_keys.scopes as scopes',
      'api_keys.team_id as teamId',
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
    .executeTakeFirst()
    .then((row) => row && { ...row, scopes: null, teamId: null });
}

export async function touchCredential(
  db: Kysely<DB>,
  kind: 'api_key' | 'session',
  id: string,
  at: string,
  ip: string,
): Promise<void> {
  // The address is written with the time (API keys only: a key's owner checks where it is used from).
  if (kind === 'api_key') {
    await db
      .updateTable('api_keys')
      .set({ last_used_at: at, last_used_ip: ip })
      .where('id', '=', id)
      .execute();
    return;
  }
  await db.updateTable('sessions').set({ last_used_at: at }).where('id', '=', id).execute();
}
