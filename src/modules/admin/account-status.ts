// Changing an account's status: used by the admin endpoint and, later, by report resolutions.
import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import { DAY_MS } from '../../core/clock.js';
import type { DB, UserStatus } from '../../core/db/schema.js';
import { revokeAllCredentials } from '../auth/auth.repo.js';
import { updateUser } from '../users/users.repo.js';

export const DEFAULT_SUSPENSION_DAYS = 7;

export interface StatusChange {
  status: UserStatus;
  /** Only for SUSPENDED; defaults to now + 7 days. */
  suspendedUntil?: string;
}

/** Applies a status; a ban also revokes every key and token, so they fail on the very next request. */
export async function applyAccountStatus(
  db: Kysely<DB>,
  clock: Clock,
  userId: string,
  change: StatusChange,
): Promise<void> {
  const now = clock.now();
  const suspendedUntil =
    change.status === 'SUSPENDED'
      ? (change.suspendedUntil ?? new Date(now.getTime() + DEFAULT_SUSPENSION_DAYS * DAY_MS).toISOString())
      : null;
  await db.transaction().execute(async (trx) => {
    await updateUser(trx, userId, {
      status: change.status,
      suspended_until: suspendedUntil,
      updated_at: now.toISOString(),
    });
    if (change.status === 'BANNED') await revokeAllCredentials(trx, userId, now.toISOString());
  });
}
