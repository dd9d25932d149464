// What the plan tests of GET /resources share (catalog-list-plans, listed-matches-plans): a corpus whose
// popularity ties, the cost overrides that force a plan, and every page of a filter held against the order of
// the unfiltered catalogue.
import { expect } from 'vitest';
import type { SEARCH_LIMITS } from '../../src/modules/search/resource-facets.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import { listCatalogue } from './catalogue.js';
import { buildCorpus } from './resources-corpus.js';
import type { Corpus, CorpusEntry } from './resources-corpus.js';

// Popularity grows with (1 + downloads)(1 + likes)²: these give 15 products, all distinct (no two orders of
// equal popularity to tell apart by rounding), each shared by several resources, so the id breaks ties.
export const downloadsOf = (entry: CorpusEntry): number => [0, 2, 9, 30, 100][entry.index % 5]!;
export const likesOf = (entry: CorpusEntry): number => (entry.index * 7) % 3;
export const popularityOf = (entry: CorpusEntry): number =>
  (1 + downloadsOf(entry)) * (1 + likesOf(entry)) ** 2;

/** 90 resources (resources-corpus.ts) with those downloads and likes; the clock past the page cache. */
export async function buildPlanCorpus(t: TestApp): Promise<Corpus> {
  const moderator = await createUser(t.app, { role: 'MODERATOR' });
  const owner = await createUser(t.app);
  const corpus = await buildCorpus(t.app, t.clock, [owner], moderator, 90);
  const { db } = t.app.context.database;
  for (const entry of corpus.entries) {
    await db
      .updateTable('resources')
      .set({ downloads: downloadsOf(entry), like_count: likesOf(entry) })
      .where('id', '=', entry.resource.id)
      .execute();
  }
  t.clock.advance(5001);
  return corpus;
}

export const PLAN_SORTS = ['date', 'updated', 'downloads', 'likes', 'name'] as const;

/** SEARCH_LIMITS.hashedWalk costs for both dialects that make a hashed walk always (0) or never (1e9) pay. */
export const forcedHashedWalk = (hashLink: number): Partial<typeof SEARCH_LIMITS> => {
  const costs = { hashLink, testRow: 0, probeRow: 1, gatherMatch: 1 };
  return { hashedWalk: { postgres: costs, sqlite: costs } };
};

/** A filter of the catalogue: its query string and which corpus entries it must list. */
export interface PlanCase {
  query: string;
  matches: (entry: CorpusEntry) => boolean;
}

/**
 * For every sort: each case's pages of 4, one after another, hold exactly its matches in the order of the
 * unfiltered catalogue, every page with the exact total.
 */
export async function expectPagesInCatalogueOrder(
  t: TestApp,
  corpus: Corpus,
  cases: PlanCase[],
  label: string,
): Promise<void> {
  for (const sort of PLAN_SORTS) {
    const whole = await listCatalogue(t, `sortBy=${sort}&limit=100`);
    expect(whole.total).toBe(corpus.entries.filter((entry) => entry.approved).length);
    for (const { query, matches } of cases) {
      const wanted = new Set(corpus.entries.filter(matches).map((entry) => entry.resource.id));
      const want = whole.resources.map((r) => r.id).filter((id) => wanted.has(id));
      const seen: string[] = [];
      for (let page = 1; page <= Math.ceil(want.length / 4) + 1; page++) {
        const body = await listCatalogue(t, `${query}&sortBy=${sort}&limit=4&page=${page}`);
        expect(body.meta, `${label} ${sort} ${query}`).toMatchObject({
          total: want.length,
          totalExact: true,
        });
        seen.push(...body.resources.map((r) => r.id));
      }
      expect(seen, `${label} ${sort} ${query}`).toEqual(want);
    }
  }
}
