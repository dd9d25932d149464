// GET /servers/:id/rank: the stored score, its parts and the formula that combines them.
import type { Kysely } from 'kysely';
import type { Actor } from '../../../core/auth/authenticate.js';
import type { ServerAccess } from '../../../core/auth/server-access.js';
import type { DB } from '../../../core/db/schema.js';
import { toIsoTimestamp } from '../../../core/db/dialect.js';
import { notFound } from '../../../core/http/errors.js';
import { rankFormula } from './rank.formula.js';
import type { RankWeights } from './rank.formula.js';
import { findRankRow } from './rank.repo.js';
import type { RankRow } from './rank.repo.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export type ServerRankService = ReturnType<typeof createServerRankService>;

export function createServerRankService(deps: {
  db: Kysely<DB>;
  serverAccess: ServerAccess;
  weights: RankWeights;
}) {
  const { db, serverAccess, weights } = deps;
  const formula = rankFormula(weights);

  return {
    /** Everyone for an APPROVED server; the owner side and moderators see the others' score with rank null. */
    async explain(actor: Actor | null, serverId: string) {
      const row = await findRankRow(db, serverId);
      if (row === undefined) throw notFound('Server');
      await serverAccess.authorize(actor, 'server.view', {
        id: row.id,
        status: row.status,
        ownerType: row.owner_type,
        ownerId: row.owner_id,
      });
      return toServerRank(row, weights, formula);
    },
  };
}

export function toServerRank(row: RankRow, weights: RankWeights, formula: string) {
  const computedAt = row.score_computed_at === null ? null : toIsoTimestamp(row.score_computed_at);
  const listedAt = row.listed_at === null ? null : toIsoTimestamp(row.listed_at);
  // As of the computation, so the parts add up to the score shown (the age part keeps growing after it).
  const daysListed =
    computedAt === null || listedAt === null
      ? 0
      : Math.max(0, (Date.parse(computedAt) - Date.parse(listedAt)) / DAY_MS);
  return {
    rank: row.status === 'APPROVED' ? row.rank : null,
    score: Number(row.score),
    components: {
      votes30d: Number(row.votes_30d),
      averagePlayers7d: Number(row.average_players_7d),
      uptime7d: Number(row.uptime_7d),
      daysListed,
    },
    weights: { ...weights },
    formula,
    computedAt,
    listedAt,
  };
}
