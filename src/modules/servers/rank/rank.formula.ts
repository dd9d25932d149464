// The rank's score as the operator configured it: the human-readable formula that GET /servers/:id/rank and the
// OpenAPI descriptions show, built from the same weights the recompute job multiplies with.
import type { RankConfig } from '../../../config.js';

export type RankWeights = RankConfig['weights'];

/** Days listed count up to this many; past it every server gets the same age part. */
export const MAX_DAYS_LISTED = 30;

/** A weight as people write it: 0.5, 2, 30, and 1/3 rather than 0.333333. */
export function formatWeight(weight: number): string {
  if (Number.isInteger(weight) || String(weight).length <= 8) return String(weight);
  const denominator = Math.round(1 / weight);
  if (denominator > 1 && Math.abs(1 / denominator - weight) < 1e-12) return `1/${denominator}`;
  return String(Number(weight.toPrecision(6)));
}

export function rankFormula(weights: RankWeights): string {
  return (
    `score = ${formatWeight(weights.votes)}·votes30d + ${formatWeight(weights.players)}·averagePlayers7d + ` +
    `${formatWeight(weights.uptime)}·uptime7d + ${formatWeight(weights.age)}·min(daysListed, ${MAX_DAYS_LISTED}); ` +
    'ties go to the older listing'
  );
}

/** What the formula means, for the OpenAPI descriptions (the route's and sort=rank's). */
export function rankExplanation(weights: RankWeights): string {
  return (
    `${rankFormula(weights)}. votes30d: votes in the last 30 days; averagePlayers7d and uptime7d: over the 168 ` +
    'complete hours before the current one (hourly rollups), counting the hours since the server was created ' +
    'when it is younger, a minute without a sample as offline with 0 players; daysListed: fractional days ' +
    'since the first approval. The operator sets the weights (RANK_WEIGHT_VOTES, RANK_WEIGHT_PLAYERS, ' +
    'RANK_WEIGHT_UPTIME, RANK_WEIGHT_AGE; defaults 0.5, 2, 30 and 1/3). Recomputed every minute; a server ' +
    'gets its rank at approval.'
  );
}
