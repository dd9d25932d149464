// The rank of every APPROVED server, recomputed in place by one UPDATE … FROM a window-function subquery (both
// dialects), writing only the rows whose rank changed.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../../../core/db/schema.js';
import { bumpDirectoryVersion } from '../servers.repo.js';

export async function recomputeRanks(db: Kysely<DB>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // Moderation already clears the rank of a server leaving APPROVED; this only repairs what slipped past.
    await trx
      .updateTable('servers')
      .set({ rank: null })
      .where('status', '!=', 'APPROVED')
      .where('rank', 'is not', null)
      .execute();
    const ranked = trx
      .selectFrom('servers')
      .select([
        'servers.id',
        sql<number>`row_number() over (order by online_players desc, created_at asc, id asc)`.as('position'),
      ])
      .where('servers.status', '=', 'APPROVED')
      .as('ranked');
    const result = await trx
      .updateTable('servers')
      .from(ranked)
      .set((eb) => ({ rank: eb.ref('ranked.position') }))
      .whereRef('servers.id', '=', 'ranked.id')
      // Re-checked against the current row: a server suspended meanwhile keeps its null rank.
      .where('servers.status', '=', 'APPROVED')
      .where((eb) =>
        eb.or([eb('servers.rank', 'is', null), eb('servers.rank', '!=', eb.ref('ranked.position'))]),
      )
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) > 0) await bumpDirectoryVersion(trx);
  });
}
