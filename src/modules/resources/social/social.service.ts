// Likes and favorites (DESIGN §8 "Social"): idempotent, and the resource's counter moves in the transaction
// that adds or removes the edge, so it stays exact however many users react at once.
import type { Kysely } from 'kysely';
import type { Actor } from '../../../core/auth/authenticate.js';
import type { ResourceAccess } from '../../../core/auth/resource-access.js';
import type { Clock } from '../../../core/clock.js';
import type { DialectName } from '../../../core/db/database.js';
import type { DB } from '../../../core/db/schema.js';
import { notFound } from '../../../core/http/errors.js';
import { newId } from '../../../core/ids.js';
import type { MediaUrls } from '../../../core/media-urls.js';
import { bumpCatalogueVersion, lockResource } from '../resources.repo.js';
import type { ResourcesService } from '../resources.service.js';
import { toFavorite, toLike } from './social.mapper.js';
import * as repo from './social.repo.js';
import type { ReactionCounter, ReactionTable } from './social.repo.js';

export type Reaction = 'like' | 'favorite';

const REACTIONS: Record<Reaction, { table: ReactionTable; counter: ReactionCounter }> = {
  like: { table: 'resource_likes', counter: 'like_count' },
  favorite: { table: 'resource_favorites', counter: 'favorite_count' },
};

export type SocialService = ReturnType<typeof createSocialService>;

export function createSocialService(deps: {
  db: Kysely<DB>;
  dialect: DialectName;
  clock: Clock;
  urls: MediaUrls;
  resourceAccess: ResourceAccess;
  resources: Pick<ResourcesService, 'requireHead'>;
}) {
  const { db, dialect, clock, urls, resourceAccess, resources } = deps;

  async function requireVisible(actor: Actor | null, resourceId: string): Promise<void> {
    await resourceAccess.authorizeView(actor, await resources.requireHead(resourceId));
  }

  return {
    /** Adds (on) or removes the caller's like or favorite; returns the resource's count afterwards. */
    async set(actor: Actor, resourceId: string, reaction: Reaction, on: boolean): Promise<number> {
      await requireVisible(actor, resourceId);
      const { table, counter } = REACTIONS[reaction];
      return db.transaction().execute(async (trx) => {
        if (!(await lockResource(trx, dialect, resourceId))) throw notFound('Resource');
        const changed = on
          ? await repo.insertReaction(trx, table, {
              id: newId(),
              resource_id: resourceId,
              user_id: actor.userId,
              created_at: clock.now().toISOString(),
            })
          : await repo.deleteReaction(trx, table, resourceId, actor.userId);
        if (changed) {
          await repo.moveReactionCount(trx, counter, resourceId, on ? 1 : -1);
          await bumpCatalogueVersion(trx);
        }
        return repo.readReactionCount(trx, counter, resourceId);
      });
    },

    async has(actor: Actor, resourceId: string, reaction: Reaction): Promise<boolean> {
      await requireVisible(actor, resourceId);
      return repo.hasReaction(db, REACTIONS[reaction].table, resourceId, actor.userId);
    },

    /** `total` is the stored like count. */
    async likes(actor: Actor | null, resourceId: string, limit: number, offset: number) {
      await requireVisible(actor, resourceId);
      const [rows, total] = await Promise.all([
        repo.listLikes(db, resourceId, limit, offset),
        repo.readReactionCount(db, 'like_count', resourceId),
      ]);
      const likes = rows.map((row) => toLike(row, urls));
      return { likes, total };
    },

    async favorites(actor: Actor, limit: number, offset: number) {
      const visibility = resourceAccess.listVisibility(actor);
      const [rows, total] = await Promise.all([
        repo.listFavorites(db, actor.userId, visibility, limit, offset),
        repo.countFavorites(db, actor.userId, visibility),
      ]);
      const favorites = rows.map((row) => toFavorite(row, urls));
      return { favorites, total };
    },
  };
}
