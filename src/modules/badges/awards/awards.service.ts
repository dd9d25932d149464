// Awarding and revoking badges (DESIGN §8 "Badges"): one award per user and badge, active badges only, and
// awarded_count moved in the same transaction as the award row.
import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../../core/auth/authenticate.js';
import type { Clock } from '../../../core/clock.js';
import type { DialectName } from '../../../core/db/database.js';
import { isUniqueViolation } from '../../../core/db/dialect.js';
import type { DB } from '../../../core/db/schema.js';
import { conflict, notFound } from '../../../core/http/errors.js';
import { recordEvent } from '../../../core/events/record.js';
import { newId } from '../../../core/ids.js';
import { recordAudit } from '../../audit/record.js';
import { findUserById } from '../../users/users.repo.js';
import { findBadgeById } from '../badges.repo.js';
import type { BadgeRow } from '../badges.repo.js';
import { toAward, toUserBadge } from './awards.mapper.js';
import * as repo from './awards.repo.js';
import type { UserBadgeRow } from './awards.repo.js';

export interface NewAward {
  badgeId: string;
  userId: string;
  reason?: string;
}

const alreadyAwarded = () => conflict('The user already has this badge', 'BADGE_ALREADY_AWARDED');
const inactive = () => conflict('This badge is inactive and cannot be awarded', 'BADGE_INACTIVE');

/** badge.awarded and badge.revoked: the subject is the user who holds (or held) the badge. */
async function recordBadgeEvent(
  trx: Transaction<DB>,
  type: 'badge.awarded' | 'badge.revoked',
  change: { at: string; actorId: string; userId: string; badge: Pick<BadgeRow, 'id' | 'slug'> },
): Promise<void> {
  await recordEvent(trx, {
    type,
    at: change.at,
    actorId: change.actorId,
    subjectId: change.userId,
    data: { badgeId: change.badge.id, badgeSlug: change.badge.slug },
    placement: { userId: change.userId, subjectPublic: true },
  });
}

export type BadgeAwardsService = ReturnType<typeof createBadgeAwardsService>;

export function createBadgeAwardsService(deps: { db: Kysely<DB>; dialect: DialectName; clock: Clock }) {
  const { db, dialect, clock } = deps;

  /** Banned accounts have no public profile: they neither receive badges nor show them (404). */
  async function requireVisibleUser(userId: string): Promise<void> {
    const user = await findUserById(db, userId);
    if (user === undefined || user.status === 'BANNED') throw notFound('User');
  }

  return {
    async award(actor: Actor, input: NewAward) {
      const badge = await findBadgeById(db, input.badgeId);
      if (badge === undefined) throw notFound('Badge');
      await requireVisibleUser(input.userId);
      if (!badge.is_active) throw inactive();
      if ((await repo.findUserBadge(db, input.badgeId, input.userId)) !== undefined) throw alreadyAwarded();
      const row: UserBadgeRow = {
        id: newId(),
        user_id: input.userId,
        badge_id: input.badgeId,
        awarded_by: actor.userId,
        reason: input.reason ?? null,
        awarded_at: clock.now().toISOString(),
      };
      try {
        await db.transaction().execute(async (trx) => {
          if (!(await repo.countAwardIfActive(trx, input.badgeId))) {
            // Deactivated or deleted since the first read.
            if ((await findBadgeById(trx, input.badgeId)) === undefined) throw notFound('Badge');
            throw inactive();
          }
          await repo.insertUserBadge(trx, row);
          await recordBadgeEvent(trx, 'badge.awarded', {
            at: row.awarded_at,
            actorId: actor.userId,
            userId: row.user_id,
            badge,
          });
          await recordAudit(trx, {
            actorId: actor.userId,
            action: 'badge.awarded',
            subjectKind: 'USER',
            subjectId: row.user_id,
            before: null,
            after: { badgeId: badge.id, badgeSlug: badge.slug, reason: row.reason },
            at: row.awarded_at,
          });
        });
      } catch (error) {
        // The same award made concurrently: the pair key let one through, and this transaction rolled back.
        if (isUniqueViolation(error)) throw alreadyAwarded();
        throw error;
      }
      return { message: `Badge "${badge.name}" awarded`, userBadge: toAward(row) };
    },

    async revoke(actor: Actor, badgeId: string, userId: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        if (!(await repo.deleteUserBadge(trx, badgeId, userId))) throw notFound('Badge award');
        await repo.uncountAward(trx, badgeId);
        // The award row existed, so the badge does (deleting a badge removes its awards with it).
        const badge = await findBadgeById(trx, badgeId);
        if (badge === undefined) throw notFound('Badge award');
        const at = clock.now().toISOString();
        await recordBadgeEvent(trx, 'badge.revoked', { at, actorId: actor.userId, userId, badge });
        await recordAudit(trx, {
          actorId: actor.userId,
          action: 'badge.revoked',
          subjectKind: 'USER',
          subjectId: userId,
          before: { badgeId: badge.id, badgeSlug: badge.slug },
          after: null,
          at,
        });
      });
    },

    async listForUser(userId: string) {
      await requireVisibleUser(userId);
      return (await repo.listHeldBadges(db, dialect, [userId])).map(toUserBadge);
    },
  };
}
