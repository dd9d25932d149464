// Likes and favorites: one edge table each, and the counter on the resource that moves with every edge change.
import type { Expression, ExpressionBuilder, Kysely, SqlBool, Transaction } from 'kysely';
import type { DB, ResourceType } from '../../../core/db/schema.js';

type Executor = Kysely<DB> | Transaction<DB>;
export type ReactionTable = 'resource_likes' | 'resource_favorites';
export type ReactionCounter = 'like_count' | 'favorite_count';

/** False when the edge already existed (liking twice is idempotent). */
export async function insertReaction(
  db: Executor,
  table: ReactionTable,
  row: { id: string; resource_id: string; user_id: string; created_at: string },
): Promise<boolean> {
  const result = await db
    .insertInto(table)
    .values(row)
    .onConflict((oc) => oc.columns(['resource_id', 'user_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function deleteReaction(
  db: Executor,
  table: ReactionTable,
  resourceId: string,
  userId: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom(table)
    .where('resource_id', '=', resourceId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function moveReactionCount(
  db: Executor,
  column: ReactionCounter,
  resourceId: string,
  delta: 1 | -1,
): Promise<void> {
  await db
    .updateTable('resources')
    .set((eb) => ({ [column]: eb(column, '+', delta) }))
    .where('id', '=', resourceId)
    .execute();
}

export async function readReactionCount(db: Executor, column: ReactionCounter, resourceId: string) {
  const row = await db.selectFrom('resources').select(column).where('id', '=', resourceId).executeTakeFirst();
  return Number((row as Record<ReactionCounter, number> | undefined)?.[column] ?? 0);
}

export async function hasReaction(db: Executor, table: ReactionTable, resourceId: string, userId: string) {
  const row = await db
    .selectFrom(table)
    .select('id')
    .where('resource_id', '=', resourceId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row !== undefined;
}

export interface LikeRow {
  id: string;
  user_id: string;
  created_at: string;
  username: string;
  display_name: string | null;
  image_key: string | null;
}

/** Newest first. */
export function listLikes(
  db: Executor,
  resourceId: string,
  limit: number,
  offset: number,
): Promise<LikeRow[]> {
  return db
    .selectFrom('resource_likes as l')
    .innerJoin('users as u', 'u.id', 'l.user_id')
    .select(['l.id', 'l.user_id', 'l.created_at', 'u.username', 'u.display_name', 'u.image_key'])
    .where('l.resource_id', '=', resourceId)
    .orderBy('l.created_at', 'desc')
    .orderBy('l.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

export interface FavoriteRow {
  id: string;
  resource_id: string;
  created_at: string;
  name: string;
  slug: string;
  short_description: string;
  icon_key: string | null;
  type: ResourceType;
}

type Visibility = ((eb: ExpressionBuilder<DB, 'resources'>) => Expression<SqlBool>) | null;

function favoritesOf(db: Executor, userId: string, visibility: Visibility) {
  let query = db
    .selectFrom('resource_favorites')
    .innerJoin('resources', 'resources.id', 'resource_favorites.resource_id')
    .where('resource_favorites.user_id', '=', userId);
  // A favorite of a resource the caller may no longer see (suspended, rejected) is left out, not revealed.
  if (visibility !== null) {
    query = query.where((eb) => visibility(eb as unknown as ExpressionBuilder<DB, 'resources'>));
  }
  return query;
}

/** The caller's favorites, newest first, with the resource summary. */
export function listFavorites(
  db: Executor,
  userId: string,
  visibility: Visibility,
  limit: number,
  offset: number,
): Promise<FavoriteRow[]> {
  return favoritesOf(db, userId, visibility)
    .select([
      'resource_favorites.id',
      'resource_favorites.resource_id',
      'resource_favorites.created_at',
      'resources.name',
      'resources.slug',
      'resources.short_description',
      'resources.icon_key',
      'resources.type',
    ])
    .orderBy('resource_favorites.created_at', 'desc')
    .orderBy('resource_favorites.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function countFavorites(db: Executor, userId: string, visibility: Visibility): Promise<number> {
  const row = await favoritesOf(db, userId, visibility)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
