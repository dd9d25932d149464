// Changing an account's status: used by the admin endpoint and by report resolutions, each in its own transaction
// with the audit entry (user.status_changed) of the change.
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../core/clock.js';
import { DAY_MS } from '../../core/clock.js';
import type { DB, UserStatus } from '../../core/db/schema.js';
import { revokeAllCredentials } from '../auth/auth.repo.js';
import { recordAudit } from '../audit/record.js';
import { findUserById, updateUser } from '../users/users.repo.js';

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
  actorId: string,
): Promise<void> {
  await db.transaction().execute((trx) => applyAccountStatusIn(trx, clock, userId, change, actorId));
}

/** The same inside the caller's transaction; the audit entry names only what changed (nothing when nothing did). */
export async function applyAccountStatusIn(
  trx: Transaction<DB>,
  clock: Clock,
  userId: string,
  change: StatusChange,
  actorId: string,
): Promise<void> {
  const now = clock.now();
  const suspendedUntil =
    change.status === 'SUSPENDED'
      ? (change.suspendedUntil ?? new Date(now.getTime() + DEFAULT_SUSPENSION_DAYS * DAY_MS).toISOString())
      : null;
  const current = await findUserById(trx, userId);
  await updateUser(trx, userId, {
    status: change.status,
    suspended_until: suspendedUntil,
    updated_at: now.toISOString(),
  });
  if (change.status === 'BANNED') await revokeAllCredentials(trx, userId, now.toISOString());
  if (
    current !== undefined &&
    (current.status !== change.status || current.suspended_until !== suspendedUntil)
  ) {
    await recordAudit(trx, {
      actorId,
      action: 'user.status_changed',
      subjectKind: 'USER',
      subjectId: userId,
      before: { status: current.status, suspendedUntil: current.suspended_until },
      after: { status: change.status, suspendedUntil },
      at: now.toISOString(),
    });
  }
}
