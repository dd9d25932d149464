// The badge catalog (DESIGN §8 "Badges"): public reads; create, edit and delete by admins. Awards live in
// ./awards.
import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.js';
import { isUniqueViolation } from '../../core/db/dialect.js';
import type { DB } from '../../core/db/schema.js';
import { notFound, slugTaken } from '../../core/http/errors.js';
import { newId } from '../../core/ids.js';
import { changedFields, recordCatalogAudit } from '../audit/record.js';
import { toBadge, toCreatedBadge } from './badges.mapper.js';
import * as repo from './badges.repo.js';
import type { BadgeRow } from './badges.repo.js';

export interface NewBadge {
  name: string;
  slug: string;
  description?: string | null;
  iconUrl?: string | null;
  color?: string | null;
  isActive?: boolean;
}

export type BadgePatch = Partial<Pick<NewBadge, 'name' | 'description' | 'iconUrl' | 'color' | 'isActive'>>;

/** An empty optional text means "none", like null. */
const orNull = (value: string | null | undefined) =>
  value === undefined || value === null || value === '' ? null : value;

export type BadgesService = ReturnType<typeof createBadgesService>;

export function createBadgesService(deps: { db: Kysely<DB>; clock: Clock }) {
  const { db, clock } = deps;

  async function requireBadge(badgeId: string): Promise<BadgeRow> {
    const row = await repo.findBadgeById(db, badgeId);
    if (row === undefined) throw notFound('Badge');
    return row;
  }

  return {
    async list(isActive: boolean | undefined) {
      return (await repo.listBadges(db, isActive)).map(toBadge);
    },

    async getById(badgeId: string) {
      return toBadge(await requireBadge(badgeId));
    },

    async getBySlug(slug: string) {
      const row = await repo.findBadgeBySlug(db, slug);
      if (row === undefined) throw notFound('Badge');
      return toBadge(row);
    },

    async create(actorId: string, input: NewBadge) {
      if (await repo.slugExists(db, input.slug)) throw slugTaken(input.slug);
      const now = clock.now().toISOString();
      const row: BadgeRow = {
        id: newId(),
        name: input.name,
        slug: input.slug,
        description: orNull(input.description),
        icon_url: orNull(input.iconUrl),
        color: orNull(input.color),
        is_active: input.isActive ?? true,
        awarded_count: 0,
        created_at: now,
        updated_at: now,
      };
      try {
        await db.transaction().execute(async (trx) => {
          await repo.insertBadge(trx, row);
          await recordCatalogAudit(trx, 'badge', 'created', {
            actorId,
            subjectId: row.id,
            before: null,
            after: { name: row.name, slug: row.slug, isActive: row.is_active },
            at: now,
          });
        });
      } catch (error) {
        // Lost a race with a concurrent creation under the same slug.
        if (isUniqueViolation(error)) throw slugTaken(input.slug);
        throw error;
      }
      return toCreatedBadge(row);
    },

    /** The slug never changes; awardedCount is not the caller's to set. */
    async update(actorId: string, badgeId: string, patch: BadgePatch) {
      const badge = await requireBadge(badgeId);
      const changes = {
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.description !== undefined ? { description: orNull(patch.description) } : {}),
        ...(patch.iconUrl !== undefined ? { icon_url: orNull(patch.iconUrl) } : {}),
        ...(patch.color !== undefined ? { color: orNull(patch.color) } : {}),
        ...(patch.isActive !== undefined ? { is_active: patch.isActive } : {}),
      };
      if (Object.keys(changes).length === 0) return toBadge(badge);
      const at = clock.now().toISOString();
      await db.transaction().execute(async (trx) => {
        if (!(await repo.updateBadge(trx, badgeId, { ...changes, updated_at: at }))) throw notFound('Badge');
        await recordCatalogAudit(trx, 'badge', 'updated', {
          actorId,
          subjectId: badgeId,
          ...changedFields(badge, changes),
          at,
        });
      });
      // Re-read: awarded_count may have moved since the first read.
      return toBadge(await requireBadge(badgeId));
    },

    /**
     * Takes the badge away from every user who had it. The awards go with the badge (foreign key) and record
     * no badge.revoked each: a deleted badge is a catalog change, not a decision about its holders.
     */
    async remove(actorId: string, badgeId: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const current = await repo.findBadgeById(trx, badgeId);
        if (current === undefined || !(await repo.deleteBadge(trx, badgeId))) throw notFound('Badge');
        await recordCatalogAudit(trx, 'badge', 'deleted', {
          actorId,
          subjectId: badgeId,
          before: { name: current.name, slug: current.slug, awardedCount: current.awarded_count },
          after: null,
          at: clock.now().toISOString(),
        });
      });
    },
  };
}
