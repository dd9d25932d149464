// Follows are idempotent and the counters move in the same transaction as the edge (DESIGN §5, §8). A new edge
// records user.followed about the followed user; following again, and unfollowing, record nothing.
import type { Kysely } from 'kysely';
import type { Clock } from '../../../core/clock.js';
import type { DB } from '../../../core/db/schema.js';
import { recordEvent } from '../../../core/events/record.js';
import { badRequest, forbidden, notFound } from '../../../core/http/errors.js';
import type { MediaUrls } from '../../../core/media-urls.js';
import { findUserById } from '../users.repo.js';
import * as repo from './follows.repo.js';

export type FollowsService = ReturnType<typeof createFollowsService>;

export function createFollowsService({ db, clock, urls }: { db: Kysely<DB>; clock: Clock; urls: MediaUrls }) {
  async function requireTarget(userId: string) {
    const target = await findUserById(db, userId);
    if (target === undefined || target.status === 'BANNED') throw notFound('User');
  }

  return {
    async follow(followerId: string, userId: string): Promise<number> {
      if (followerId === userId)
        throw badRequest('You cannot follow yourself', { fields: { userId: 'is yourself' } });
      await requireTarget(userId);
      return db.transaction().execute(async (trx) => {
        const at = clock.now().toISOString();
        if (await repo.insertFollow(trx, followerId, userId, at)) {
          await repo.moveFollowCounts(trx, followerId, userId, 1);
          await recordEvent(trx, {
            type: 'user.followed',
            at,
            actorId: followerId,
            subjectId: userId,
            data: { followerId },
            placement: { userId, subjectPublic: true },
          });
        }
        return repo.followerCount(trx, userId);
      });
    },

    async unfollow(followerId: string, userId: string): Promise<number> {
      if (followerId === userId)
        throw badRequest('You cannot unfollow yourself', { fields: { userId: 'is yourself' } });
      await requireTarget(userId);
      return db.transaction().execute(async (trx) => {
        if (await repo.deleteFollow(trx, followerId, userId))
          await repo.moveFollowCounts(trx, followerId, userId, -1);
        return repo.followerCount(trx, userId);
      });
    },

    async list(
      callerId: string,
      userId: string,
      direction: 'followers' | 'following',
      limit: number,
      offset: number,
    ) {
      if (callerId !== userId) throw forbidden(`You can only view your own ${direction} list`);
      const rows = await repo.listFollowEdges(db, userId, direction, limit, offset);
      return rows.map((row) => ({
        id: row.id,
        username: row.username,
        displayName: row.display_name,
        image: urls.avatar(row.image_key),
        bio: row.bio,
        followedAt: row.followed_at,
        _count: { followers: row.follower_count, following: row.following_count },
      }));
    },
  };
}
