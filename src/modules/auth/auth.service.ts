import type { Kysely } from 'kysely';
import type { Actor } from '../../core/auth/authenticate.js';
import { digest, newSessionToken } from '../../core/auth/credentials.js';
import { decoyHash, verifyPassword } from '../../core/auth/passwords.js';
import type { Clock } from '../../core/clock.js';
import { DAY_MS } from '../../core/clock.js';
import type { DB } from '../../core/db/schema.js';
import { AppError, badRequest, forbidden } from '../../core/http/errors.js';
import { newId } from '../../core/ids.js';
import { findUserByLogin } from '../users/users.repo.js';
import { createAccount } from './accounts.js';
import type { NewAccount } from './accounts.js';
import { deleteSession, insertSession } from './auth.repo.js';

export const SESSION_LIFETIME_MS = 30 * DAY_MS;

const invalidLogin = () => new AppError(401, 'INVALID_CREDENTIALS', 'Invalid login or password');

export type AuthService = ReturnType<typeof createAuthService>;

export function createAuthService({ db, clock }: { db: Kysely<DB>; clock: Clock }) {
  return {
    register: (input: NewAccount) => createAccount(db, clock, { ...input, role: 'USER' }),

    async login(login: string, password: string) {
      const user = await findUserByLogin(db, login.trim());
      // Unknown login and wrong password look the same, in status and in time.
      const ok = await verifyPassword(user?.password_hash ?? (await decoyHash()), password);
      if (user === undefined || user.password_hash === null || !ok) throw invalidLogin();
      if (user.status === 'BANNED') throw forbidden('This account is banned', 'ACCOUNT_BANNED');
      const token = newSessionToken();
      const now = clock.now();
      const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS).toISOString();
      await insertSession(db, {
        id: newId(),
        user_id: user.id,
        token_hash: digest(token),
        created_at: now.toISOString(),
        expires_at: expiresAt,
        last_used_at: null,
        revoked_at: null,
      });
      return { token, expiresAt, user };
    },

    async logout(actor: Actor): Promise<void> {
      if (actor.credential.kind !== 'session') {
        throw badRequest(
          'Logout revokes a bearer token; delete API keys with DELETE /users/me/api-keys/:keyId',
        );
      }
      await deleteSession(db, actor.credential.id);
    },
  };
}
