// Creating an account: shared by POST /auth/register and the operator CLI.
import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import { isUniqueViolation } from '../../core/db/dialect.js';
import type { DB, Role } from '../../core/db/schema.js';
import { conflict } from '../../core/http/errors.js';
import { hashPassword } from '../../core/auth/passwords.js';
import { newId } from '../../core/ids.js';
import { refreshUserSearch } from '../search/user-documents.js';
import { findUserByLogin, insertUser } from '../users/users.repo.js';
import type { UserRow } from '../users/users.repo.js';

export interface NewAccount {
  username: string;
  email: string;
  password: string;
  role?: Role;
}

function taken(field: 'username' | 'email'): Error {
  return conflict(
    `This ${field} is already registered`,
    field === 'username' ? 'USERNAME_TAKEN' : 'EMAIL_TAKEN',
    {
      fields: { [field]: 'is already registered' },
    },
  );
}

export async function createAccount(db: Kysely<DB>, clock: Clock, input: NewAccount): Promise<UserRow> {
  const email = input.email.toLowerCase();
  const usernameKey = input.username.toLowerCase();
  const [byName, byEmail] = await Promise.all([findUserByLogin(db, usernameKey), findUserByLogin(db, email)]);
  if (byName?.username_key === usernameKey) throw taken('username');
  if (byEmail?.email === email) throw taken('email');
  const now = clock.now().toISOString();
  const row: UserRow = {
    id: newId(),
    username: input.username,
    username_key: usernameKey,
    email,
    password_hash: await hashPassword(input.password),
    display_name: null,
    bio: null,
    location: null,
    website: null,
    image_key: null,
    banner_key: null,
    role: input.role ?? 'USER',
    status: 'ACTIVE',
    suspended_until: null,
    trusted: false,
    follower_count: 0,
    following_count: 0,
    created_at: now,
    updated_at: now,
  };
  try {
    await db.transaction().execute(async (trx) => {
      await insertUser(trx, row);
      await refreshUserSearch(trx, [row.id]);
    });
  } catch (error) {
    // Lost a race with a concurrent registration of the same name or email.
    if (isUniqueViolation(error)) {
      throw taken(String((error as Error).message).includes('email') ? 'email' : 'username');
    }
    throw error;
  }
  return row;
}
