// A search whose count listed every match's id (SearchMatch.documents) pages them in a column's order, or a
// relevance top tier by popularity, by the plan plan-costs.ts listedMatchesPlan chooses: the ids hashed and the
// sort index walked against them (MatchPlan 'hashed'; on PostgreSQL search-alone pages through searchPagePlan,
// migration 0042 making the popularity walk index only), or the matches gathered (SQLite may also walk probing
// each row). Every plan must give the same pages, holding exactly the brute-force matches in the order of the
// unfiltered catalogue, on both dialects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SEARCH_LIMITS } from '../../src/modules/search/resource-facets.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { listCatalogue } from './catalogue.js';
import { matches } from './resources-corpus.js';
import type { Corpus, CorpusEntry } from './resources-corpus.js';
import {
  PLAN_SORTS,
  buildPlanCorpus,
  expectPagesInCatalogueOrder,
  forcedHashedWalk,
  popularityOf,
} from './plan-pages.js';
import { statementsOf } from './statements.js';
import { withSearchLimits } from './search-limits.js';

let t: TestApp;
let corpus: Corpus;

beforeAll(async () => {
  t = await buildTestApp();
  corpus = await buildPlanCorpus(t);
}, 120_000);
afterAll(async () => t.close());

interface Search {
  search: string;
  type?: string;
}

// One word (a prefix too), two words, a word typed whole, and one with a type (the documents' facet terms).
const SEARCHES: Search[] = [
  { search: 'amber' },
  { search: 'fro' },
  { search: 'pine raven' },
  { search: 'jade ' },
  { search: 'marble', type: 'MOD' },
];

const PLANS: Array<[string, Partial<typeof SEARCH_LIMITS>]> = [
  ['as costed', {}],
  ['hashed', { ...forcedHashedWalk(0), documentIdRead: 0 }],
  ['not hashed', { ...forcedHashedWalk(1e9), documentIdRead: 1e9 }],
  // The walk bounded to a row or two (ResourceFilter.walk): most pages fall back to gathering.
  [
    'hashed, bounded',
    { ...forcedHashedWalk(0), documentIdRead: 0, hashedWalkSlack: 0.01, hashedWalkMinRows: 1 },
  ],
];

const matchesSearch = (entry: CorpusEntry, { search, type }: Search) =>
  entry.approved && (type === undefined || entry.resource.type === type) && matches(entry, search);

const query = ({ search, type }: Search) =>
  `search=${encodeURIComponent(search)}${type === undefined ? '' : `&type=${type}`}`;

/** Every page of 4 of a query, one after another, each with an exact total. */
async function allPages(url: string, pages: number): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 1; page <= pages; page++) {
    const body = await listCatalogue(t, `${url}&limit=4&page=${page}`);
    expect(body.meta.totalExact, url).toBe(true);
    ids.push(...body.resources.map((resource) => resource.id));
  }
  return ids;
}

const postgres = () => t.app.context.database.dialect === 'postgres';

/**
 * The statements that tested rows against listed ids read once (resource-match.ts inHashedMatches), walking the
 * sort index in the statement itself or in a bounded walk (`w`).
 */
const hashedTests = (statements: Array<{ text: string }>) => {
  const tests = postgres() ? [') is true'] : ['+resources.id in (', '+w.id in ('];
  return statements.filter(({ text }) => tests.some((test) => text.includes(test)));
};

/** The statements that gathered listed matches by their ids (PostgreSQL's plan 'ids', SQLite's 'gather'). */
const gatheredById = (statements: Array<{ text: string }>) => {
  const gather = postgres()
    ? '= any(array(select json_array_elements_text'
    : '"resources"."id" in (select "resources"."id" from "resources" where (+resources.status';
  return statements.filter(({ text }) => text.includes(gather) && hashedTests([{ text }]).length === 0);
};

/**
 * Hashed walks of listed matches read a bounded walk (`limit` inside, `w`), and walks bounded to a row or two
 * leave pages short, which are then gathered by id.
 */
function expectBoundedWalks(plan: string, statements: Array<{ text: string }>) {
  if (!plan.startsWith('hashed')) return;
  const walks = hashedTests(statements).filter(({ text }) => text.includes('as "w"'));
  expect(walks.length).toBeGreaterThan(0);
  if (plan === 'hashed, bounded') expect(gatheredById(statements).length).toBeGreaterThan(0);
}

describe('pages of a search whose count listed its matches, by every plan', () => {
  it('is exercised: every search matches some resources and leaves most out', () => {
    for (const search of SEARCHES) {
      const matched = corpus.entries.filter((entry) => matchesSearch(entry, search)).length;
      expect(matched, JSON.stringify(search)).toBeGreaterThan(4);
      expect(matched, JSON.stringify(search)).toBeLessThan(corpus.entries.length / 2);
    }
  });

  it.each(PLANS)('%s: every sort’s pages hold the matches in the catalogue’s order', (plan, limits) =>
    withSearchLimits(t.clock, limits, async () => {
      const cases = SEARCHES.map((search) => ({
        query: query(search),
        matches: (entry: CorpusEntry) => matchesSearch(entry, search),
      }));
      const statements = await statementsOf(() => expectPagesInCatalogueOrder(t, corpus, cases, plan));
      const hashed = hashedTests(statements);
      if (plan.startsWith('hashed')) {
        expect(hashed.length).toBeGreaterThanOrEqual(PLAN_SORTS.length * SEARCHES.length);
      }
      if (plan === 'not hashed') expect(hashed).toEqual([]);
      expectBoundedWalks(plan, statements);
    }),
  );
});

describe('relevance pages whose top tier was listed, by every plan', () => {
  // Every word in the name: the top tier, ordered by popularity alone (then id), before every other match.
  const inName = (entry: CorpusEntry, search: string) => {
    const name = entry.resource.name.toLowerCase().split(' ');
    const words = search.trim().split(/\s+/);
    return words.every((word, i) =>
      i === words.length - 1 && !search.endsWith(' ')
        ? name.some((w) => w.startsWith(word))
        : name.includes(word),
    );
  };

  // (Two words in one name are too rare in this corpus to fill a page.)
  it.each(PLANS)('%s: the same pages, the top tier first, every match once', (plan, limits) =>
    withSearchLimits(t.clock, limits, async () => {
      const statements = await statementsOf(async () => {
        for (const search of SEARCHES.filter(({ search }) => !search.includes(' ') || search.endsWith(' '))) {
          const matched = corpus.entries.filter((entry) => matchesSearch(entry, search));
          const ids = await allPages(`${query(search)}&sortBy=relevance`, Math.ceil(matched.length / 4) + 1);
          expect([...ids].sort(), JSON.stringify(search)).toEqual(matched.map((e) => e.resource.id).sort());
          const top = matched.filter((entry) => inName(entry, search.search));
          // The top tier fills a page where a walk can read it (a type's walk reads no popularity index).
          if (search.type === undefined) expect(top.length, JSON.stringify(search)).toBeGreaterThanOrEqual(4);
          // The top tier in popularity order, the id breaking ties (both descending).
          const wantTop = [...top]
            .sort((a, b) => popularityOf(b) - popularityOf(a) || (a.resource.id < b.resource.id ? 1 : -1))
            .map((e) => e.resource.id);
          expect(ids.slice(0, top.length), `${plan} ${JSON.stringify(search)}`).toEqual(wantTop);
        }
      });
      const hashed = hashedTests(statements);
      if (plan.startsWith('hashed')) expect(hashed.length).toBeGreaterThanOrEqual(3);
      if (plan === 'not hashed') expect(hashed).toEqual([]);
      expectBoundedWalks(plan, statements);
    }),
  );
});
