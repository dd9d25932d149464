// Relevance's top tier counts its matches only as far as its plan choice needs (resource-facets.ts
// plansSettledAt): capped there, scanPays and walkPays decide exactly as they do on a count to the cap.
import { describe, expect, it } from 'vitest';
import { SEARCH_LIMITS } from '../../src/modules/search/resource-facets.js';
import { plansSettledAt, scanPays, walkPays } from '../../src/modules/search/plan-costs.js';

/** The plan a count capped at `cap` chooses, as resource-lists.service.ts topTierPage does. */
async function planOf(matches: number, cap: number, pageEnd: number, approved: number) {
  const counted = { total: Math.min(matches, cap), exact: matches <= cap };
  if (counted.total < pageEnd) return 'none';
  const count = () => Promise.resolve(approved);
  if (await scanPays(counted, pageEnd, count)) return 'scan';
  return (await walkPays(counted.total, pageEnd, count)) ? 'walk' : 'gather';
}

describe('plansSettledAt', () => {
  it('gives the plan a count to the cap gives, for every size of match list', async () => {
    for (const approved of [10_000, 100_000, 1_000_000]) {
      for (const pageEnd of [20, 140, 1_000]) {
        const settled = await plansSettledAt(pageEnd, () => Promise.resolve(approved));
        expect(settled).toBeLessThanOrEqual(SEARCH_LIMITS.countCap);
        expect(settled).toBeGreaterThanOrEqual(pageEnd);
        const sizes = new Set([0, 1, pageEnd - 1, pageEnd, settled - 1, settled, settled + 1, 20_000]);
        for (let matches = 0; matches <= SEARCH_LIMITS.countCap + 1; matches += 97) sizes.add(matches);
        for (const matches of sizes) {
          if (matches < 0) continue;
          const want = await planOf(matches, SEARCH_LIMITS.countCap, pageEnd, approved);
          expect(await planOf(matches, settled, pageEnd, approved), `${approved} ${pageEnd} ${matches}`).toBe(
            want,
          );
        }
      }
    }
  });

  it('counts fewer matches than the cap where the catalogue is large (page 1 at 1M: 4,473)', async () => {
    expect(await plansSettledAt(20, () => Promise.resolve(1_000_000))).toBe(4_473);
    expect(await plansSettledAt(20, () => Promise.resolve(10_000))).toBe(501);
  });
});
