// A page of one catalog list without a search, ordered by a column, walks the sort index testing each row
// against the list's link ids read once (MatchPlan 'hashed', search/resource-totals.ts catalogListsPlan) when
// that pays, else PostgreSQL reads the page's ids first however its planner finds them ('gather') and SQLite
// walks probing the link table or gathers, as its count decides. Every plan must give every sort's pages in the
// order of the unfiltered catalogue, holding exactly the brute-force matches, on both dialects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SEARCH_LIMITS } from '../../src/modules/search/resource-facets.js';
import { hashedLinksLimit, hashedWalkPays, listedMatchesPlan } from '../../src/modules/search/plan-costs.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import type { Corpus, CorpusEntry } from './resources-corpus.js';
import { buildPlanCorpus, expectPagesInCatalogueOrder, forcedHashedWalk, PLAN_SORTS } from './plan-pages.js';
import { statementsOf } from './statements.js';
import { withSearchLimits } from './search-limits.js';

describe('hashedWalkPays', () => {
  const approved = () => Promise.resolve(900_000);
  const pays = (links: number, matches: number, pageEnd: number, limit = 100_000) =>
    hashedWalkPays('postgres', { links, matches }, pageEnd, approved, limit);

  it('hashes a list on 1% of the catalogue from page 1, deep pages included', async () => {
    expect(await pays(9_000, 9_000, 20)).toBe(true);
    expect(await pays(9_000, 9_000, 1_020)).toBe(true);
  });

  it('leaves a dense list to probes (a short walk) and a sparse one to gathering', async () => {
    expect(await pays(400_000, 400_000, 20, 1e9)).toBe(false);
    expect(await pays(900, 900, 20)).toBe(false);
    expect(await pays(900, 900, 200)).toBe(false);
  });

  it('never hashes past the limit, nor a list that matches nothing', async () => {
    expect(await pays(9_000, 9_000, 20, 8_999)).toBe(false);
    expect(await pays(9_000, 0, 20)).toBe(false);
    // Game versions with a type: the hashed links are every type's, the matches the type's alone.
    expect(await pays(9_000, 3_000, 20)).toBe(true);
  });

  it('SQLite: hashes where its gathered matches cost more than the walk (random reads of a large file)', async () => {
    const sqlite = (links: number, pageEnd: number) =>
      hashedWalkPays('sqlite', { links, matches: links }, pageEnd, approved, 100_000);
    expect(await sqlite(9_000, 200)).toBe(true);
    expect(await sqlite(3_756, 160)).toBe(true);
    expect(await sqlite(400_000, 20)).toBe(false);
    expect(await sqlite(300, 200)).toBe(false);
  });

  it('keeps the hashed ids within work_mem on PostgreSQL (256 bytes each), at most 100,000', () => {
    expect(hashedLinksLimit('postgres', 1)).toBe(4_096);
    expect(hashedLinksLimit('postgres', 16)).toBe(65_536);
    expect(hashedLinksLimit('postgres', 64)).toBe(100_000);
    expect(hashedLinksLimit('sqlite', 1)).toBe(100_000);
  });
});

describe('listedMatchesPlan (SQLite), a search whose count listed its documents, at 1M', () => {
  const approved = () => Promise.resolve(900_000);
  it('hashes their ids where the walk is long and the matches many', async () => {
    // A relevance top tier of 1,868 by popularity: ~9,600 rows walked.
    expect(await listedMatchesPlan('sqlite', 1_868, 20, approved)).toBe('hashed');
    expect(await listedMatchesPlan('sqlite', 3_660, 20, approved)).toBe('hashed');
  });
  it('walks where the walk is short, gathers few matches, and answers no match by gathering', async () => {
    expect(await listedMatchesPlan('sqlite', 9_000, 20, approved)).toBe('walk');
    expect(await listedMatchesPlan('sqlite', 300, 20, approved)).toBe('gather');
    // Page 50: 246,000 rows walked for 3,660 matches.
    expect(await listedMatchesPlan('sqlite', 3_660, 1_000, approved)).toBe('gather');
    expect(await listedMatchesPlan('sqlite', 0, 20, approved)).toBe('gather');
  });
});

describe('listedMatchesPlan (PostgreSQL), at 1M', () => {
  const approved = () => Promise.resolve(900_000);
  it('hashes their ids for a short walk of many matches, else gathers them; it never walks probing', async () => {
    // A relevance top tier of 2,153 by popularity, page 1: ~8,400 rows walked index only (migration 0042).
    expect(await listedMatchesPlan('postgres', 2_153, 20, approved)).toBe('hashed');
    expect(await listedMatchesPlan('postgres', 9_000, 20, approved)).toBe('hashed');
    expect(await listedMatchesPlan('postgres', 300, 20, approved)).toBe('gather');
    expect(await listedMatchesPlan('postgres', 3_660, 1_000, approved)).toBe('gather');
    expect(await listedMatchesPlan('postgres', 0, 20, approved)).toBe('gather');
  });
});

let t: TestApp;
let corpus: Corpus;

beforeAll(async () => {
  t = await buildTestApp();
  corpus = await buildPlanCorpus(t);
}, 120_000);
afterAll(async () => t.close());

interface Filter {
  type?: string;
  tags?: string[];
  categories?: string[];
  versions?: string[];
}

const FILTERS: Filter[] = [
  // One tag alone: its link rows' sort keys under every plan (resources/tag-link-pages.ts).
  { tags: ['combat'] },
  { tags: ['combat', 'horror'] },
  { tags: ['combat', 'magic'], type: 'MOD' },
  // A slug of two types' categories: two values.
  { categories: ['adventure'] },
  { categories: ['economy'], type: 'PLUGIN' },
  { versions: ['1.2'] },
  { versions: ['1.0'], type: 'WORLD' },
  { versions: ['1.0', '1.2'], type: 'WORLD' },
  // Two lists: PostgreSQL counts first, listing the matches, and pages them as a search's listed matches.
  { tags: ['combat', 'magic'], versions: ['1.0', '1.2'] },
  { type: 'MOD', tags: ['combat', 'magic', 'horror'], versions: ['1.0', '1.1'] },
  { tags: ['multiplayer', 'lightweight', 'library', 'combat'], categories: ['adventure'] },
];
const PLANS: Array<[string, Partial<typeof SEARCH_LIMITS>]> = [
  ['as costed', {}],
  ['hashed', forcedHashedWalk(0)],
  ['not hashed', forcedHashedWalk(1e9)],
  // Listed matches walked a row or two at most (ResourceFilter.walk): most pages are then gathered by id.
  ['hashed, bounded', { ...forcedHashedWalk(0), hashedWalkSlack: 0.01, hashedWalkMinRows: 1 }],
  // SQLite: every list of one catalog value walked, each row probing its links.
  ['walked', { ...forcedHashedWalk(1e9), walkFromMatches: 0, walkRatio: 0 }],
];

function matchesFilter(entry: CorpusEntry, filter: Filter): boolean {
  const { resource } = entry;
  const anyOf = (wanted: string[] | undefined, have: string[]) =>
    wanted === undefined || wanted.some((value) => have.includes(value));
  return (
    entry.approved &&
    (filter.type === undefined || resource.type === filter.type) &&
    anyOf(
      filter.tags,
      resource.tags.map((tag) => tag.slug),
    ) &&
    anyOf(
      filter.categories,
      resource.categories.map((category) => category.slug),
    ) &&
    anyOf(
      filter.versions,
      resource.gameVersions.map((version) => version.name),
    )
  );
}

function query(filter: Filter): string {
  const params = new URLSearchParams();
  if (filter.type !== undefined) params.set('type', filter.type);
  if (filter.tags !== undefined) params.set('tags', filter.tags.join(','));
  if (filter.categories !== undefined) params.set('categories', filter.categories.join(','));
  if (filter.versions !== undefined) params.set('versions', filter.versions.join(','));
  return params.toString();
}

describe('pages of catalog lists without a search, by every plan', () => {
  it('is exercised: every filter matches some resources and leaves some out', () => {
    for (const filter of FILTERS) {
      const matched = corpus.entries.filter((entry) => matchesFilter(entry, filter)).length;
      expect(matched, JSON.stringify(filter)).toBeGreaterThan(4);
      expect(matched, JSON.stringify(filter)).toBeLessThan(corpus.entries.length / 2);
    }
  });

  it.each(PLANS)('%s: every page of every sort holds the matches in the catalogue’s order', (plan, limits) =>
    withSearchLimits(t.clock, limits, async () => {
      const cases = FILTERS.map((filter) => ({
        query: query(filter),
        matches: (entry: CorpusEntry) => matchesFilter(entry, filter),
      }));
      const statements = await statementsOf(() => expectPagesInCatalogueOrder(t, corpus, cases, plan));
      // The plan was the one asked for: the link ids read once for every page of one list, or for none.
      const postgres = t.app.context.database.dialect === 'postgres';
      const test = postgres ? ') is true' : '+resources.id in (';
      const hashed = statements.filter(({ text }) => text.includes(test));
      if (plan.startsWith('hashed')) expect(hashed.length).toBeGreaterThanOrEqual(5 * 8);
      if (plan === 'not hashed' || plan === 'walked') expect(hashed).toEqual([]);
      if (!postgres) {
        // SQLite's walks probing each row's links join the owners of the page's rows alone (pageOfViews).
        const pages = statements.filter(({ text }) =>
          text.startsWith('select "resources"."id", "resources"."name"'),
        );
        const probing = pages.filter(({ text }) => text.includes('exists ('));
        if (plan === 'walked') expect(probing.length).toBeGreaterThan(0);
        for (const { text } of probing) {
          expect(text).toMatch(
            /where "resources"\."id" in \(select "resources"\."id" from "resources" where .*exists \(/s,
          );
        }
        return;
      }
      // PostgreSQL, several lists: the pages read the ids their count listed, walked against them (bounded,
      // `w`) or gathered by id.
      const listed = statements.filter(({ text }) => text.includes('json_array_elements_text'));
      const walks = listed.filter(({ text }) => text.includes('as "w"'));
      const gathered = listed.filter(({ text }) =>
        text.includes('= any(array(select json_array_elements_text'),
      );
      expect(listed.length).toBeGreaterThanOrEqual(3 * 5);
      if (plan.startsWith('hashed')) expect(walks.length).toBeGreaterThan(0);
      if (plan === 'not hashed') expect(walks).toEqual([]);
      if (plan !== 'hashed') expect(gathered.length).toBeGreaterThan(0);
    }),
  );
});

describe('gathered pages of catalog lists without a search (resources/catalog-lists.ts gatheredFromLinks)', () => {
  /** The page statements (not counts, not facets) of every sort's pages of `filter`, gathered (never hashed). */
  const pagesOf = async (filter: Filter): Promise<string[]> => {
    let pages: string[] = [];
    await withSearchLimits(t.clock, forcedHashedWalk(1e9), async () => {
      const matches = (entry: CorpusEntry) => matchesFilter(entry, filter);
      const statements = await statementsOf(() =>
        expectPagesInCatalogueOrder(t, corpus, [{ query: query(filter), matches }], 'gathered'),
      );
      pages = statements
        .map(({ text }) => text)
        .filter((text) => text.startsWith('select "resources"."id", "resources"."name"'))
        // (Not the whole catalogue's pages, the order the filter's are checked against.)
        .filter((text) => !/where "resources"\."status" = (\?|\$\d+) order by/.test(text));
    });
    return pages;
  };
  const readsLinks = (text: string) =>
    / as "l" where l\."(tag_id|category_id|game_version_id)" in/.test(text);
  // SQLite's gathered pages keep the status off its index (resource-views.repo.ts resourceFilterCondition).
  const gathered = (text: string) => text.includes('+resources.status = ?');

  // (One tag alone is read from its link rows' sort keys, never gathered: tag-link-sort-keys.test.ts.)
  it.each<Filter>([
    { tags: ['combat', 'horror'] },
    { tags: ['combat'], type: 'MOD' },
    { categories: ['economy'], type: 'PLUGIN' },
    { versions: ['1.2'] },
  ])('one list, %j: its link rows, never the documents’ facet terms', async (filter) => {
    const pages = await pagesOf(filter);
    expect(pages.length).toBeGreaterThanOrEqual(PLAN_SORTS.length);
    for (const text of pages) {
      expect(text).not.toContain('resource_search_fts');
      expect(readsLinks(text)).toBe(true);
    }
    if (t.app.context.database.dialect === 'sqlite') expect(pages.filter(gathered).length).toBeGreaterThan(0);
  });

  it('SQLite: several lists, or game versions with a type (whose links carry no type), as facet terms', async () => {
    const sqlite = t.app.context.database.dialect === 'sqlite';
    for (const filter of [
      { tags: ['combat', 'magic'], versions: ['1.0', '1.2'] },
      { versions: ['1.0'], type: 'WORLD' },
    ] satisfies Filter[]) {
      const fromTerms = (await pagesOf(filter)).filter(gathered);
      // (PostgreSQL gathers no page this way: its own plans are the tests above.)
      expect(fromTerms.length > 0).toBe(sqlite);
      for (const text of fromTerms) {
        expect(text).toContain('resource_search_fts');
        expect(readsLinks(text)).toBe(false);
      }
    }
  });
});
