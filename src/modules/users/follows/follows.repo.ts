import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../../core/db/schema.js';

type Executor = Kysely<DB> | Transaction<DB>;

export async function isFollowing(db: Executor, followerId: string, followingId: string): Promise<boolean> {
  const row = await db
    .selectFrom('follows')
    .select('follower_id')
    .where('follower_id', '=', followerId)
    .where('following_id', '=', followingId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Inserts the edge; false when it already existed (follow is idempotent). */
export async function insertFollow(
  db: Executor,
  followerId: string,
  followingId: string,
  at: string,
): Promise<boolean> {
  const result = await db
    .insertInto('follows')
    .values({ follower_id: followerId, following_id: followingId, created_at: at })
    .onConflict((oc) => oc.columns(['follower_id', 'following_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function deleteFollow(db: Executor, followerId: string, followingId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('follows')
    .where('follower_id', '=', followerId)
    .where('following_id', '=', followingId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Moves both users' counters by delta, atomically with the edge change. */
export async function moveFollowCounts(db: Executor, followerId: string, followingId: string, delta: 1 | -1) {
  await db
    .updateTable('users')
    .set((eb) => ({ following_count: eb('following_count', '+', delta) }))
    .where('id', '=', followerId)
    .execute();
  await db
    .updateTable('users')
    .set((eb) => ({ follower_count: eb('follower_count', '+', delta) }))
    .where('id', '=', followingId)
    .execute();
}

export async function followerCount(db: Executor, userId: string): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select('follower_count')
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  return row.follower_count;
}

export interface FollowEdgeUser {
  id: string;
  username: string;
  display_name: string | null;
  image_key: string | null;
  bio: string | null;
  follower_count: number;
  following_count: number;
  followed_at: string;
}

/** The users on the other side of userId's edges, newest first. */
export function listFollowEdges(
  db: Executor,
  userId: string,
  direction: 'followers' | 'following',
  limit: number,
  offset: number,
): Promise<FollowEdgeUser[]> {
  const [mine, theirs] =
    direction === 'followers'
      ? (['following_id', 'follower_id'] as const)
      : (['follower_id', 'following_id'] as const);
  return db
    .selectFrom('follows')
    .innerJoin('users', 'users.id', `follows.${theirs}`)
    .select([
      'users.id',
      'users.username',
      'users.display_name',
      'users.image_key',
      'users.bio',
      'users.follower_count',
      'users.following_count',
      'follows.created_at as followed_at',
    ])
    .where(`follows.${mine}`, '=', userId)
    .orderBy('follows.created_at', 'desc')
    .orderBy('users.id')
    .limit(limit)
    .offset(offset)
    .execute();
}
