// Seeds a realistic data set straight through Kysely (bulk inserts; no password hashing per row).
// Modules add their own seeders here as they arrive; each returns the targets the benchmark hits.
import type { Kysely } from 'kysely';
import type { DB } from '../src/core/db/schema.js';
import { newId } from '../src/core/ids.js';

export interface SeedResult {
  /** Named values the endpoint list interpolates into paths (e.g. a user id). */
  targets: Record<string, string>;
}

const BATCH = 500;

async function insertInBatches<T>(rows: T[], insert: (batch: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) await insert(rows.slice(i, i + BATCH));
}

export async function seedUsers(db: Kysely<DB>, count: number): Promise<SeedResult> {
  const now = Date.now();
  const users = Array.from({ length: count }, (_, i) => {
    const at = new Date(now - (count - i) * 60_000).toISOString();
    return {
      id: newId(),
      username: `player_${i}`,
      username_key: `player_${i}`,
      email: `player_${i}@example.test`,
      password_hash: null,
      display_name: `Player ${i}`,
      bio: `Builder of things #${i}. Likes redstone, mods and long walks in the nether.`,
      location: 'Somewhere',
      website: `https://example.test/${i}`,
      image_key: null,
      banner_key: null,
      role: 'USER' as const,
      status: 'ACTIVE' as const,
      suspended_until: null,
      follower_count: 0,
      following_count: 0,
      created_at: at,
      updated_at: at,
    };
  });
  await insertInBatches(users, (batch) => db.insertInto('users').values(batch).execute());

  // The profile under test: some social links and a few hundred followers (counters as the app keeps them).
  const star = users[Math.floor(count / 2)]!;
  const followers = users.slice(0, Math.min(300, count - 1)).filter((user) => user.id !== star.id);
  await insertInBatches(followers, (batch) =>
    db
      .insertInto('follows')
      .values(
        batch.map((f) => ({
          follower_id: f.id,
          following_id: star.id,
          created_at: new Date().toISOString(),
        })),
      )
      .execute(),
  );
  await db.updateTable('users').set({ follower_count: followers.length }).where('id', '=', star.id).execute();
  await db
    .insertInto('social_links')
    .values(
      ['CODE_HOSTING', 'VIDEO_SHARING', 'WEBSITE'].map((platform, position) => ({
        id: newId(),
        owner_type: 'USER',
        owner_id: star.id,
        platform,
        url: `https://example.test/${platform.toLowerCase()}/${star.username}`,
        position,
        created_at: new Date().toISOString(),
      })),
    )
    .execute();
  return { targets: { userId: star.id, username: star.username } };
}
