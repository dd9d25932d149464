import type { Kysely } from 'kysely';
import type { DB } from '../../core/db/schema.js';

/** Rows deleted per statement, so a large purge never holds a long lock. */
const CHUNK = 5000;

/** Deletes events created before `before` (their deliveries go by cascade); returns how many. */
export async function deleteEventsBefore(db: Kysely<DB>, before: string): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await db
      .deleteFrom('events')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('events')
          .select('id')
          .where('created_at', '<', before)
          .orderBy('created_at')
          .limit(CHUNK),
      )
      .executeTakeFirst();
    const deleted = Number(result.numDeletedRows);
    total += deleted;
    if (deleted < CHUNK) return total;
  }
}
