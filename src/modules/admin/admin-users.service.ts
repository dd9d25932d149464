import type { Kysely } from 'kysely';
import type { Actor } from '../../core/auth/authenticate.js';
import { hasRank } from '../../core/auth/roles.js';
import type { Clock } from '../../core/clock.js';
import type { DialectName } from '../../core/db/database.js';
import type { DB, Role, UserStatus } from '../../core/db/schema.js';
import { badRequest, forbidden, notFound } from '../../core/http/errors.js';
import type { MediaUrls } from '../../core/media-urls.js';
import { toPrivateProfile } from '../users/users.mapper.js';
import type { UserRow } from '../users/users.repo.js';
import * as usersRepo from '../users/users.repo.js';
import type { AdminUserFilter } from '../users/users.repo.js';
import { recordAudit } from '../audit/record.js';
import { applyAccountStatusIn } from './account-status.js';
import type { BadgeReader } from '../users/badge-reader.js';

export interface AdminUserPatch {
  role?: Role;
  status?: UserStatus;
  suspendedUntil?: string;
  /** Trusted creator (spec/extensions.md §4). */
  trusted?: boolean;
}

/** What admins see of an account: the private profile and whether the account is a trusted creator. */
const toAdminUser = (row: UserRow, urls: MediaUrls, badges: Parameters<typeof toPrivateProfile>[2]) =>
  Object.assign(toPrivateProfile(row, urls, badges), { trusted: Boolean(row.trusted) });

export type AdminUsersService = ReturnType<typeof createAdminUsersService>;

export function createAdminUsersService(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  clock: Clock;
  urls: MediaUrls;
  badges: BadgeReader;
}) {
  const { db, dialect, clock, urls, badges } = deps;

  async function view(userIds: string[]) {
    const [rows, badgeMap] = await Promise.all([
      usersRepo.findUsersByIds(db, userIds),
      badges.forUsers(userIds),
    ]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    return userIds.flatMap((id) => {
      const row = byId.get(id);
      return row === undefined ? [] : [toAdminUser(row, urls, badgeMap.get(id) ?? [])];
    });
  }

  return {
    async list(filter: AdminUserFilter, limit: number, offset: number) {
      const [rows, total] = await Promise.all([
        usersRepo.listUsersForAdmin(db, dialect, filter, limit, offset),
        usersRepo.countUsersForAdmin(db, dialect, filter),
      ]);
      const badgeMap = await badges.forUsers(rows.map((row) => row.id));
      return { users: rows.map((row) => toAdminUser(row, urls, badgeMap.get(row.id) ?? [])), total };
    },

    async update(actor: Actor, userId: string, patch: AdminUserPatch) {
      if (patch.role === undefined && patch.status === undefined && patch.trusted === undefined) {
        throw badRequest('Give a role, a status or trusted to change', {
          fields: { body: 'needs role, status or trusted' },
        });
      }
      if (actor.userId === userId) throw forbidden('You cannot change your own role, status or trust');
      const target = await usersRepo.findUserById(db, userId);
      if (target === undefined) throw notFound('User');
      if (patch.role !== undefined && actor.role !== 'SUPER_ADMIN') {
        throw forbidden('Only a super admin can change roles');
      }
      // An admin moderates accounts below their own rank; a super admin moderates everyone else. Trust is about
      // content, not power: any admin may set it on any other account.
      const changesRank = patch.role !== undefined || patch.status !== undefined;
      if (changesRank && actor.role !== 'SUPER_ADMIN' && hasRank(target.role, actor.role)) {
        throw forbidden('You can only change accounts of a lower role than yours');
      }
      if (patch.suspendedUntil !== undefined && patch.status !== 'SUSPENDED') {
        throw badRequest('suspendedUntil goes with status SUSPENDED', {
          fields: { 'body.suspendedUntil': 'needs status SUSPENDED' },
        });
      }
      if (patch.suspendedUntil !== undefined && new Date(patch.suspendedUntil) <= clock.now()) {
        throw badRequest('suspendedUntil must be in the future', {
          fields: { 'body.suspendedUntil': 'must be in the future' },
        });
      }
      const at = clock.now().toISOString();
      // One transaction for every field and its audit entry (user.role_changed, user.status_changed,
      // user.trusted_changed), each recorded only when the value changes.
      await db.transaction().execute(async (trx) => {
        const current = await usersRepo.findUserById(trx, userId);
        if (current === undefined) throw notFound('User');
        if (patch.role !== undefined) {
          await usersRepo.updateUser(trx, userId, { role: patch.role, updated_at: at });
          if (current.role !== patch.role) {
            await recordAudit(trx, {
              actorId: actor.userId,
              action: 'user.role_changed',
              subjectKind: 'USER',
              subjectId: userId,
              before: { role: current.role },
              after: { role: patch.role },
              at,
            });
          }
        }
        if (patch.trusted !== undefined) {
          await usersRepo.updateUser(trx, userId, { trusted: patch.trusted, updated_at: at });
          if (Boolean(current.trusted) !== patch.trusted) {
            await recordAudit(trx, {
              actorId: actor.userId,
              action: 'user.trusted_changed',
              subjectKind: 'USER',
              subjectId: userId,
              before: { trusted: Boolean(current.trusted) },
              after: { trusted: patch.trusted },
              at,
            });
          }
        }
        if (patch.status !== undefined) {
          await applyAccountStatusIn(
            trx,
            clock,
            userId,
            {
              status: patch.status,
              ...(patch.suspendedUntil !== undefined ? { suspendedUntil: patch.suspendedUntil } : {}),
            },
            actor.userId,
          );
        }
      });
      const [updated] = await view([userId]);
      return updated!;
    },
  };
}
