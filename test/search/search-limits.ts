// SEARCH_LIMITS changed for part of a test, to reach a plan or an inexact path with a small corpus.
import type { ManualClock } from '../../src/core/clock.js';
import { SEARCH_LIMITS } from '../../src/modules/search/resource-facets.js';

/**
 * Runs with SEARCH_LIMITS changed, then restores them; the clock moves past the page cache's 5 s on both sides so
 * no page answers from the other limits.
 */
export async function withSearchLimits(
  clock: ManualClock,
  limits: Partial<typeof SEARCH_LIMITS>,
  run: () => Promise<void>,
): Promise<void> {
  const saved = { ...SEARCH_LIMITS };
  try {
    Object.assign(SEARCH_LIMITS, limits);
    clock.advance(5001);
    await run();
  } finally {
    Object.assign(SEARCH_LIMITS, saved);
    clock.advance(5001);
  }
}
