// GET /resources over a fixed corpus: the matches, their order, `total` and `meta.facets` equal brute-force
// answers computed from what was created, for many searches and filter combinations, on every page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import { moderate } from '../resources/helpers.js';
import type { SEARCH_LIMITS } from '../../src/modules/search/resource-facets.js';
import { listCatalogue } from './catalogue.js';
import type { Catalogue } from './catalogue.js';
import { buildCorpus, matches, wordsOf } from './resources-corpus.js';
import type { Corpus, CorpusEntry } from './resources-corpus.js';
import { withSearchLimits } from './search-limits.js';
import { statementsOf } from './statements.js';

let t: TestApp;
let corpus: Corpus;
let moderator: TestUser;
let owners: TestUser[];

beforeAll(async () => {
  t = await buildTestApp();
  moderator = await createUser(t.app, { role: 'MODERATOR' });
  owners = await Promise.all([
    createUser(t.app, { username: 'maker_solstice' }),
    createUser(t.app, { username: 'maker_tundra' }),
  ]);
  corpus = await buildCorpus(t.app, t.clock, owners, moderator, 150);
}, 120_000);
afterAll(async () => t.close());

const withLimits = (limits: Partial<typeof SEARCH_LIMITS>, run: () => Promise<void>) =>
  withSearchLimits(t.clock, limits, run);

const list = (query: string) => listCatalogue(t, query);

interface Filter {
  search?: string;
  type?: string;
  tags?: string[];
  categories?: string[];
  versions?: string[];
}

function query(filter: Filter, extra = ''): string {
  const params = new URLSearchParams();
  if (filter.search !== undefined) params.set('search', filter.search);
  if (filter.type !== undefined) params.set('type', filter.type);
  if (filter.tags !== undefined) params.set('tags', filter.tags.join(','));
  if (filter.categories !== undefined) params.set('categories', filter.categories.join(','));
  if (filter.versions !== undefined) params.set('versions', filter.versions.join(','));
  return `${params.toString()}${extra}`;
}

/** The brute-force answer: APPROVED entries matching everything, newest first. */
function expected(filter: Filter): CorpusEntry[] {
  const anyOf = (values: string[] | undefined, have: string[]) =>
    values === undefined || values.some((value) => have.includes(value));
  return corpus.entries
    .filter(
      (e) =>
        e.approved &&
        (filter.search === undefined || matches(e, filter.search)) &&
        (filter.type === undefined || e.resource.type === filter.type) &&
        anyOf(
          filter.tags,
          e.resource.tags.map((tag) => tag.slug),
        ) &&
        anyOf(
          filter.categories,
          e.resource.categories.map((c) => c.slug),
        ) &&
        anyOf(
          filter.versions,
          e.resource.gameVersions.map((v) => v.name),
        ),
    )
    .sort((a, b) => b.index - a.index);
}

function expectedFacets(entries: CorpusEntry[]) {
  const count = (facet: Record<string, number>, key: string) => (facet[key] = (facet[key] ?? 0) + 1);
  const facets = { type: {}, tags: {}, categories: {}, gameVersions: {} } as Record<
    string,
    Record<string, number>
  >;
  for (const { resource } of entries) {
    count(facets['type']!, resource.type);
    for (const tag of resource.tags) count(facets['tags']!, tag.slug);
    for (const category of resource.categories) count(facets['categories']!, category.slug);
    for (const version of resource.gameVersions) count(facets['gameVersions']!, version.name);
  }
  return facets;
}

const FILTERS: Filter[] = [
  {},
  { type: 'MOD' },
  { search: 'amber' },
  { search: 'amber ' },
  { search: 'Frost' },
  { search: 'co' },
  { search: 'm' },
  { search: 'raven pi' },
  { search: 'pine raven' },
  // Two words both in many names (marble matches `m` itself): relevance's top tier for more than one word.
  { search: 'marble m' },
  // Three words: the most that relevance's name tiers (nameTiers) serve.
  { search: 'granite marble nectar ' },
  { search: 'frost ivory rav' },
  { search: 'raven pine amber' },
  { search: 'maker' },
  { search: 'solstice' },
  { search: 'zircon' },
  { search: 'magic' },
  { search: 'amber', type: 'PLUGIN' },
  // Three words with filters: relevance's name tiers read the filters too (SQLite: as facet terms).
  { search: 'granite marble nectar ', type: 'MOD' },
  { search: 'raven pine amber', tags: ['combat'] },
  { tags: ['combat'] },
  { tags: ['combat'], type: 'MOD' },
  { tags: ['combat', 'horror'] },
  { tags: ['magic'], versions: ['1.1'] },
  { versions: ['1.2'] },
  { versions: ['1.0'], type: 'WORLD' },
  { versions: ['1.0', '1.2'], type: 'WORLD' },
  // A type, a tag and versions: SQLite reads the lists as facet terms of its FTS5 index, scoped by the type
  // (resources/catalog-lists.ts catalogFacetTerms).
  { tags: ['combat'], versions: ['1.0', '1.2'], type: 'MOD' },
  { tags: ['combat', 'horror'], versions: ['1.1'], type: 'WORLD' },
  { categories: ['utility'] },
  { categories: ['gameplay'] },
  { categories: ['utility'], type: 'PLUGIN' },
  { search: 'l', tags: ['library', 'multiplayer'], versions: ['1.0'] },
  // A search with lists: a list drives when it is smaller than the matches (SQLite), else the matches do.
  { search: 'amber', tags: ['combat'] },
  { search: 'r', categories: ['utility'], type: 'PLUGIN' },
  { search: 'zircon', tags: ['magic'] },
  { search: 'onyx quartz', type: 'ASSET_PACK' },
  // Tags with a type: only that type's link rows are read (migration 0029), driving or gathered.
  { tags: ['combat', 'horror'], type: 'MOD' },
  { search: 'r', tags: ['combat', 'horror'], type: 'MOD' },
  { search: 'amber', tags: ['combat'], type: 'PLUGIN' },
  // PostgreSQL intersects a search with these filters as the documents' facet terms (migration 0030): game
  // versions scoped by a type, categories of two types, every list at once.
  { search: 'r', versions: ['1.0', '1.2'], type: 'WORLD' },
  { search: 'l', categories: ['utility', 'gameplay'] },
  { search: 'r', tags: ['combat', 'horror'], versions: ['1.1'], type: 'WORLD' },
  // Whole words (no prefix): PostgreSQL reads the lists as facet terms whatever their size.
  { search: 'amber ', tags: ['combat'] },
  { search: 'raven pine ', categories: ['utility'], type: 'PLUGIN' },
];

/** Every page newest first: the brute-force order, with the exact total on each. */
async function expectPages(filter: Filter): Promise<void> {
  const want = expected(filter).map((e) => e.resource.id);
  const seen: string[] = [];
  for (let page = 1; page <= Math.max(1, Math.ceil(want.length / 9)); page++) {
    const body = await list(query(filter, `&limit=9&page=${page}`));
    expect(body.total).toBe(want.length);
    expect(body.meta).toMatchObject({ total: want.length, totalExact: true, limit: 9, page });
    expect(body.meta.facets).toBeUndefined();
    seen.push(...body.resources.map((r) => r.id));
  }
  expect(seen).toEqual(want);
}

/** Relevance pages: every match once, none skipped. */
async function expectRelevancePages(filter: Filter): Promise<void> {
  const want = expected(filter).map((e) => e.resource.id);
  const seen: string[] = [];
  for (let page = 1; page <= Math.ceil(want.length / 7) + 1; page++) {
    const body = await list(query(filter, `&limit=7&page=${page}&sortBy=relevance`));
    expect(body.total).toBe(want.length);
    seen.push(...body.resources.map((r) => r.id));
  }
  expect(seen.length).toBe(want.length);
  expect([...seen].sort()).toEqual([...want].sort());
}

/** Facets: the brute-force counts over every match. */
async function expectFacets(filter: Filter): Promise<void> {
  const entries = expected(filter);
  const body = await list(query(filter, '&limit=3&facets=type,tags&facets=categories,gameVersions'));
  expect(body.total).toBe(entries.length);
  expect(body.meta.totalExact).toBe(true);
  expect(body.meta.facetsExact).toBe(true);
  expect(body.meta.facets).toEqual(expectedFacets(entries));
}

describe('totals, matches and order against brute force', () => {
  const cases = FILTERS.map((filter) => [JSON.stringify(filter), filter] as const);
  it.each(cases)('%s: every page, exact total, newest first', (_label, filter) => expectPages(filter));
  it.each(cases)('%s: relevance pages neither overlap nor skip', (_label, filter) =>
    expectRelevancePages(filter),
  );
  it.each(cases)('%s: facets equal brute-force counts over all matches', (_label, filter) =>
    expectFacets(filter),
  );
});

// PostgreSQL reads the lists of a search typed as a prefix as facet terms only when they are large (at least
// SEARCH_LIMITS.facetTermsFrom link rows): with none required, every search with lists takes that path (SQLite
// always does, migration 0031; the same answers are expected of it).
describe('a search with a type or catalog lists, read as facet terms of every size', () => {
  const cases = FILTERS.filter(
    (filter) =>
      filter.search !== undefined &&
      (filter.type !== undefined || filter.tags || filter.categories || filter.versions),
  ).map((filter) => [JSON.stringify(filter), filter] as const);
  it('is exercised', () => expect(cases.length).toBeGreaterThan(10));
  it.each(cases)('%s: pages, relevance pages and facets', (_label, filter) =>
    withLimits({ facetTermsFrom: 0 }, async () => {
      await expectPages(filter);
      await expectRelevancePages(filter);
      await expectFacets(filter);
    }),
  );
});

describe('relevance of 1–3 words: the matches with a word in the name alone when they fill the page', () => {
  const FEW_WORDS = FILTERS.filter(
    (filter) => filter.search !== undefined && wordsOf(filter.search).length <= 3,
  );
  /** Approved matches with at least `least` of the words in the name (the last one a prefix while typed). */
  const nameMatches = (filter: Filter, least = 1) => {
    const words = wordsOf(filter.search!);
    const typed = !filter.search!.endsWith(' ');
    const inName = (name: string[], word: string, last: boolean) =>
      name.some((w) => (last && typed ? w.startsWith(word) : w === word));
    return expected(filter).filter((e) => {
      const name = wordsOf(e.resource.name);
      return words.filter((word, i) => inName(name, word, i === words.length - 1)).length >= least;
    }).length;
  };

  // Varied popularity, so that an order multiplying the text score by it would differ from text score first.
  const popularity = async (of: (index: number) => [number, number]) => {
    const { db } = t.app.context.database;
    for (const entry of corpus.entries) {
      const [downloads, like_count] = of(entry.index);
      await db
        .updateTable('resources')
        .set({ downloads, like_count })
        .where('id', '=', entry.resource.id)
        .execute();
    }
    // Written behind the application's back: kept pages expire within 5 s.
    t.clock.advance(5001);
  };
  beforeAll(() => popularity((index) => [(index * 7919) % 100_000, (index * 31) % 500]));
  afterAll(() => popularity(() => [0, 0]));

  it('is exercised: some searches have more name matches than a small page', () => {
    expect(FEW_WORDS.filter((filter) => nameMatches(filter) > 3).length).toBeGreaterThan(2);
    const several = FEW_WORDS.filter((filter) => wordsOf(filter.search!).length > 1);
    expect(several.some((filter) => nameMatches(filter) > 3)).toBe(true);
  });

  // Three words in each order, a page of one at a time: the name tier must hold every match with a word in the
  // name whichever word it is.
  const THREE_WORDS: Filter[] = [
    ...FEW_WORDS.filter((filter) => wordsOf(filter.search!).length === 3),
    { search: 'nectar granite marble ' },
    { search: 'marble nectar granite ' },
  ];
  it('is exercised: three-word searches with more name matches than a page of one', () => {
    expect(THREE_WORDS.length).toBe(7);
    expect(THREE_WORDS.filter((filter) => nameMatches(filter) > 1).length).toBeGreaterThanOrEqual(4);
    // The middle tier (at least two of the words in the name) serves pages past the top tier's matches.
    const middle = (filter: Filter) => nameMatches(filter, 2) - nameMatches(filter, 3);
    expect(THREE_WORDS.filter((filter) => middle(filter) > 1).length).toBeGreaterThanOrEqual(2);
  });

  // PostgreSQL writes a typed prefix out as the name words it completes to (at most nameCompletions of them),
  // else leaves it a prefix: both must give the same tiers.
  const COMPLETIONS: Array<[string, Partial<typeof SEARCH_LIMITS>]> = [
    ['written out', {}],
    ['left a prefix', { nameCompletions: 0 }],
  ];
  it.each(
    COMPLETIONS.flatMap(([how, limits]) =>
      THREE_WORDS.map((filter) => [filter.search!, how, filter, limits] as const),
    ),
  )('%s (prefix %s): pages of one give the order of one page scoring every match', async (...args) => {
    const [, , filter, limits] = args;
    const whole = (await list(query(filter, '&limit=99&sortBy=relevance'))).resources.map((r) => r.id);
    await withLimits(limits, async () => {
      const paged: string[] = [];
      for (let page = 1; page <= whole.length; page++) {
        const body = await list(query(filter, `&limit=1&page=${page}&sortBy=relevance`));
        paged.push(...body.resources.map((r) => r.id));
      }
      expect(paged).toEqual(whole);
    });
  });

  /** Approved matches with every one of the words in the name: relevance's top tier (topTier). */
  const topMatches = (filter: Filter) => {
    const words = wordsOf(filter.search!);
    const typed = !filter.search!.endsWith(' ');
    return expected(filter).filter((e) => {
      const name = wordsOf(e.resource.name);
      return words.every((word, i) =>
        name.some((w) => (i === words.length - 1 && typed ? w.startsWith(word) : w === word)),
      );
    }).length;
  };

  // Each way of reading the top tier when it fills the page: gathered and sorted (few), the matches' list probed
  // along the popularity index (walk), the index's rows tested against the text (scan, past the count cap).
  const TIER_PLANS: Array<[string, Partial<typeof SEARCH_LIMITS>]> = [
    ['gather', {}],
    ['walk', { walkFromMatches: 0, walkRatio: 0 }],
    ['scan', { countCap: 6, scanRows: 1e9 }],
  ];
  it.each(TIER_PLANS)(
    'top tier read by %s: small pages give the order of one page scoring every match',
    async (_plan, limits) => {
      expect(FEW_WORDS.filter((filter) => topMatches(filter) > 6).length).toBeGreaterThan(2);
      expect(FEW_WORDS.some((f) => wordsOf(f.search!).length > 1 && topMatches(f) >= 2)).toBe(true);
      const wholes = new Map<Filter, string[]>();
      for (const filter of FEW_WORDS) {
        const body = await list(query(filter, '&limit=99&sortBy=relevance'));
        wholes.set(
          filter,
          body.resources.map((r) => r.id),
        );
      }
      await withLimits(limits, async () => {
        for (const filter of FEW_WORDS) {
          const whole = wholes.get(filter)!;
          const paged: string[] = [];
          for (let page = 1; page <= Math.ceil(whole.length / 2); page++) {
            const body = await list(query(filter, `&limit=2&page=${page}&sortBy=relevance`));
            paged.push(...body.resources.map((r) => r.id));
          }
          expect(paged.slice(0, whole.length), JSON.stringify(filter)).toEqual(whole);
        }
      });
    },
  );

  it.each(FEW_WORDS.map((filter) => [JSON.stringify(filter), filter] as const))(
    '%s: small pages (name matches first) give the order of one page scoring every match',
    async (_label, filter) => {
      const want = expected(filter).length;
      expect(nameMatches(filter)).toBeLessThan(99);
      const whole = (await list(query(filter, '&limit=99&sortBy=relevance'))).resources.map((r) => r.id);
      const paged: string[] = [];
      for (let page = 1; page <= Math.ceil(Math.min(want, 99) / 3); page++) {
        const body = await list(query(filter, `&limit=3&page=${page}&sortBy=relevance`));
        paged.push(...body.resources.map((r) => r.id));
      }
      expect(paged).toEqual(whole);
    },
  );
});

describe('facets', () => {
  it('adds only the facets asked for, and answers a filter naming nothing with empty ones', async () => {
    const body = await list('facets=tags&type=WORLD');
    expect(Object.keys(body.meta.facets!)).toEqual(['tags']);
    const none = await list('tags=no-such-tag&facets=type,tags');
    expect(none).toMatchObject({ total: 0, resources: [], meta: { facets: { type: {}, tags: {} } } });
  });

  it.each(['facets=price', 'facets=type,price', 'facets=Tags', 'facets=type&facets=owner'])(
    'refuses %s with 400',
    async (q) => {
      expectError(await t.app.inject({ method: 'GET', url: `/resources?${q}` }), 400, 'INVALID_REQUEST');
    },
  );

  it('follows moderation and tag changes (the counters move with the documents)', async () => {
    const target = corpus.entries.find((e) => e.approved && e.resource.type === 'MOD')!;
    const magic = corpus.catalogs.tags.find((tag) => tag.slug === 'magic')!;
    const before = await list('facets=type,tags');
    await moderate(t.app, moderator, target.resource.id, 'SUSPEND');
    t.clock.advance(1);
    const suspended = await list('facets=type,tags');
    expect(suspended.meta.facets!['type']!['MOD']).toBe(before.meta.facets!['type']!['MOD']! - 1);
    await moderate(t.app, moderator, target.resource.id, 'UNSUSPEND');
    const owner = owners.find((user) => user.id === target.resource.ownerId)!;
    const hadMagic = target.resource.tags.some((tag) => tag.slug === 'magic');
    const magicBefore = (await list('tags=magic&type=MOD')).total;
    // The owner edits the tags: the single-tag counter and the facets follow at once.
    const edit = await t.app.inject({
      method: 'PATCH',
      url: `/resources/${target.resource.id}`,
      headers: owner.headers,
      payload: { tagIds: hadMagic ? [] : [magic.id] },
    });
    expect(edit.statusCode, edit.body).toBe(200);
    const after = await list('tags=magic&type=MOD');
    expect(after.total).toBe(magicBefore + (hadMagic ? -1 : 1));
    const facets = await list('type=MOD&facets=tags');
    expect(facets.meta.facets!['tags']!['magic'] ?? 0).toBe(after.total);
    // Back as it was: the other tests compare with the corpus as created.
    const restore = await t.app.inject({
      method: 'PATCH',
      url: `/resources/${target.resource.id}`,
      headers: owner.headers,
      payload: { tagIds: target.resource.tags.map((tag) => tag.id) },
    });
    expect(restore.statusCode, restore.body).toBe(200);
    expect((await list('tags=magic&type=MOD')).total).toBe(magicBefore);
  });
});

describe('a catalog list of several values', () => {
  it('is capped from its most used value alone, and counted exactly below the cap', async () => {
    const filter: Filter = { tags: ['combat', 'horror'] };
    const union = expected(filter).length;
    const most = Math.max(expected({ tags: ['combat'] }).length, expected({ tags: ['horror'] }).length);
    const sum = expected({ tags: ['combat'] }).length + expected({ tags: ['horror'] }).length;
    // Resources with both tags: the sum is no bound, only the most used value is.
    expect(sum).toBeGreaterThan(union);
    expect(union).toBeGreaterThan(most);
    for (const [cap, meta] of [
      [most - 1, { total: most - 1, totalExact: false }],
      [most, { total: most, totalExact: false }],
      [union, { total: union, totalExact: true }],
    ] as const) {
      await withLimits({ countCap: cap }, async () => {
        const body = await list(query(filter, '&limit=3'));
        expect(body.meta, `cap ${cap}`).toMatchObject(meta);
      });
    }
  });
});

describe('plans', () => {
  it('pages the same when it walks the sort index (many matches) as when it gathers the matches', async () => {
    await withLimits({ walkFromMatches: 0, walkRatio: 0 }, async () => {
      for (const filter of FILTERS) {
        const want = expected(filter).map((e) => e.resource.id);
        const seen: string[] = [];
        for (let page = 1; page <= Math.max(1, Math.ceil(want.length / 8)); page++) {
          const body = await list(query(filter, `&limit=8&page=${page}`));
          expect(body.total).toBe(want.length);
          seen.push(...body.resources.map((r) => r.id));
        }
        expect(seen, JSON.stringify(filter)).toEqual(want);
      }
    });
  });
});

describe('plan scan: a search past the count cap tests the rows of the sort index', () => {
  it('pages as the index matches, with the cap as the total', async () => {
    await withLimits({ countCap: 5, scanRows: 1e9 }, async () => {
      const searches = FILTERS.filter((filter) => filter.search !== undefined);
      expect(searches.filter((filter) => expected(filter).length > 5).length).toBeGreaterThan(5);
      for (const filter of searches) {
        const want = expected(filter).map((e) => e.resource.id);
        const seen: string[] = [];
        for (let page = 1; page <= Math.max(1, Math.ceil(want.length / 4)); page++) {
          const body = await list(query(filter, `&limit=4&page=${page}`));
          const capped = want.length > 5;
          expect(body.meta, JSON.stringify(filter)).toMatchObject({
            total: capped ? 5 : want.length,
            totalExact: !capped,
          });
          seen.push(...body.resources.map((r) => r.id));
        }
        expect(seen, JSON.stringify(filter)).toEqual(want);
      }
    });
  });
});

/**
 * Type and tag facets of the first `scanned` matches only: the types add up to `scanned`, and each count is within
 * the brute-force one (`want`).
 */
function expectFirstMatchesFacets(
  facets: Record<string, Record<string, number>>,
  want: Record<string, Record<string, number>>,
  scanned: number,
) {
  const types = facets['type']!;
  expect(Object.values(types).reduce((a, b) => a + b, 0)).toBe(scanned);
  for (const [key, count] of Object.entries(types)) expect(count).toBeLessThanOrEqual(want['type']![key]!);
  for (const [key, count] of Object.entries(facets['tags']!))
    expect(count).toBeLessThanOrEqual(want['tags']![key]!);
}

describe('past the facet budget alone', () => {
  // The total exact (its documents kept, PostgreSQL: joined to the vectors' facet codes) or catalog filters alone
  // (the documents' facet terms), but more matches than facetScanLimit: the facets count the first ones only.
  it.each(['search=m', 'tags=combat'])(
    '%s: facetsExact false, counts summing to the limit, each a lower bound',
    async (query) => {
      const filter = query === 'search=m' ? { search: 'm' } : { tags: ['combat'] };
      const want = expectedFacets(expected(filter));
      expect(expected(filter).length).toBeGreaterThan(3);
      await withLimits({ facetScanLimit: 3 }, async () => {
        const body = await list(`${query}&limit=2&facets=type,tags`);
        expect(body.meta).toMatchObject({
          total: expected(filter).length,
          totalExact: true,
          facetsExact: false,
        });
        expectFirstMatchesFacets(body.meta.facets!, want, 3);
      });
    },
  );
});

describe('past the counting budget', () => {
  it('says totalExact and facetsExact false, with the cap as a lower bound', async () => {
    await withLimits({ countCap: 5, facetScanLimit: 5 }, async () => {
      const want = expected({ search: 'm' });
      expect(want.length).toBeGreaterThan(5);
      // Distinct queries: the page cache must not answer from before the limits changed.
      const counted = await list('search=m&limit=4&page=2');
      expect(counted.meta).toMatchObject({ total: 5, totalExact: false });
      expect(counted.resources.map((r) => r.id)).toEqual(want.slice(4, 8).map((e) => e.resource.id));
      const faceted = await list('search=m&limit=4&facets=type');
      expect(faceted.meta).toMatchObject({ total: 5, totalExact: false, facetsExact: false });
      const sum = Object.values(faceted.meta.facets!['type']!).reduce((a, b) => a + b, 0);
      expect(sum).toBe(5);
      // A whole word typed as a prefix: the facets may come from the matches of the word taken whole (SQLite),
      // still matches of the search: each count within the brute-force one.
      const amber = expectedFacets(expected({ search: 'amber' }));
      const typed = await list('search=amber&limit=3&facets=type,tags');
      expect(typed.meta).toMatchObject({ total: 5, totalExact: false, facetsExact: false });
      expectFirstMatchesFacets(typed.meta.facets!, amber, 5);
      // Counters still answer exactly: no search, one value of one catalog filter.
      const tagged = expected({ tags: ['combat'] });
      expect(tagged.length).toBeGreaterThan(5);
      expect((await list('tags=combat&limit=2')).meta).toMatchObject({
        total: tagged.length,
        totalExact: true,
      });
    });
  });
});

describe('the result window', () => {
  it('stops the pages of a search at its first resultWindow matches, in every order; lists without one go on', async () => {
    const want = expected({ search: 'm' });
    expect(want.length).toBeGreaterThan(7);
    const ids = (body: Catalogue) => body.resources.map((resource) => resource.id);
    const full = ids(await list('search=m&limit=100&sortBy=relevance'));
    await withLimits({ resultWindow: 7 }, async () => {
      for (const sort of ['', '&sortBy=relevance', '&sortBy=name']) {
        const whole = ids(await list(`search=m&limit=7${sort}`));
        // Page 2 of 3 ends at the window: its first item only; page 3 starts past it and is empty.
        const second = await list(`search=m&limit=6&page=2${sort}`);
        expect(ids(second), sort).toEqual(whole.slice(6, 7));
        expect(second.meta, sort).toMatchObject({
          total: want.length,
          totalExact: true,
          limit: 6,
          offset: 6,
        });
        const third = await list(`search=m&limit=6&page=3${sort}&facets=type`);
        expect(third.resources, sort).toEqual([]);
        expect(third.meta.total, sort).toBe(want.length);
        expect(
          Object.values(third.meta.facets!['type']!).reduce((a, b) => a + b, 0),
          sort,
        ).toBe(want.length);
      }
      expect(ids(await list('search=m&limit=7&sortBy=relevance'))).toEqual(full.slice(0, 7));
      // No text search: no window.
      const tagged = expected({ tags: ['combat'] });
      expect(tagged.length).toBeGreaterThan(7);
      expect((await list('tags=combat&limit=6&page=2')).resources).toHaveLength(
        Math.min(6, tagged.length - 6),
      );
    });
  });
});

describe('counts of a last word typed as a prefix', () => {
  /** The full-text texts of the counts a request runs (SQLite: the statements that list counted documents). */
  async function countedTexts(url: string): Promise<{ body: Catalogue; texts: string[] }> {
    let body: Catalogue | undefined;
    const statements = await statementsOf(async () => {
      body = await list(url);
    });
    const texts = statements
      .filter((statement) => statement.text.includes('json_group_array(doc_id) as documents'))
      .map((statement) => String(statement.params[0]));
    return { body: body!, texts };
  }

  it('counts an indexed prefix once, and a prefix the index keeps no list of taken whole first (SQLite)', async () => {
    const cases = [
      // 2–6 characters: FTS5 keeps their lists (migration 0032), as cheap as a whole word.
      { search: 'granit', indexed: true },
      { search: 'amber ra', indexed: true },
      // One character, seven and more: FTS5 merges the lists of every word completing them.
      { search: 'm', indexed: false },
      { search: 'thistle', indexed: false },
    ];
    // A word taken whole that reaches the cap spares the prefix's count.
    expect(expected({ search: 'thistle ' }).length).toBeGreaterThan(1);
    for (const { search, indexed } of cases) {
      const want = expected({ search }).length;
      const whole = expected({ search: `${search} ` }).length;
      expect(want, search).toBeGreaterThan(1);
      // Caps reached and not; and the word taken whole (when it matches) reaching one, not the other.
      const caps = whole > 1 ? [whole - 1, whole + 1, want + 1] : [want - 1, want + 1];
      for (const cap of new Set(caps)) {
        await withLimits({ countCap: cap }, async () => {
          const { body, texts } = await countedTexts(query({ search }, `&limit=3&c=${cap}`));
          expect(body.meta, `${search} cap ${cap}`).toMatchObject({
            total: Math.min(want, cap),
            totalExact: want <= cap,
          });
          if (t.app.context.database.dialect !== 'sqlite') return;
          if (indexed) {
            expect(texts, search).toHaveLength(1);
            expect(texts[0]).toMatch(/\*$/);
          } else {
            expect(texts[0], search).not.toMatch(/\*/);
            expect(texts, `${search} cap ${cap}`).toHaveLength(whole > cap ? 1 : 2);
          }
        });
      }
    }
  });
});

describe('SQLite: a walk of a type filter reads the type sort index', () => {
  it('costs the walk by the rows of the type, not of the whole catalogue', async () => {
    const filter: Filter = { tags: ['combat'], versions: ['1.0', '1.2'], type: 'MOD' };
    const want = expected(filter).map((e) => e.resource.id);
    const ofType = expected({ type: 'MOD' }).length;
    expect(expected({}).length).toBeGreaterThan(2 * ofType);
    // A walk pays when matches² ≥ page end × walked rows × walkRatio: exactly so with the type's rows, and far
    // from it with every APPROVED resource's.
    const pageEnd = 3;
    const walkRatio = (want.length * want.length) / (pageEnd * ofType);
    await withLimits({ walkFromMatches: 0, walkRatio }, async () => {
      const statements = await statementsOf(async () => {
        const body = await list(query(filter, '&limit=3&sortBy=date'));
        expect(body.resources.map((r) => r.id)).toEqual(want.slice(0, 3));
      });
      if (t.app.context.database.dialect !== 'sqlite') return;
      const page = statements.filter(({ text }) =>
        text.startsWith('select "resources"."id", "resources"."name"'),
      );
      expect(page).toHaveLength(1);
      // Walked: each row of the type's date index probes the link tables; gathered, the facet terms' matches.
      expect(page[0]!.text).toContain('exists (select 1 from "resource_tag_links" lp');
      expect(page[0]!.text).not.toContain('resource_search_fts');
    });
  });
});

describe('facets of a search whose filters are its facet terms', () => {
  it('are counted from the documents the search and its terms match, not from a filter over the resources', async () => {
    const filters: Filter[] = [
      { search: 'amber ', tags: ['combat'] },
      { search: 'frost ', type: 'MOD' },
      { search: 'granite ', tags: ['combat', 'horror'], type: 'MOD' },
    ];
    for (const filter of filters) {
      expect(expected(filter).length, JSON.stringify(filter)).toBeGreaterThan(1);
      const statements = await statementsOf(async () => {
        const body = await list(query(filter, '&limit=2&facets=type,tags,categories,gameVersions'));
        expect(body.meta.facets, JSON.stringify(filter)).toEqual(expectedFacets(expected(filter)));
      });
      const facetStatements = statements.filter(
        ({ text }) =>
          text.startsWith('with m as materialized') || text.includes('resource_search_facet_codes'),
      );
      expect(facetStatements, JSON.stringify(filter)).toHaveLength(1);
      expect(facetStatements[0]!.text, JSON.stringify(filter)).not.toContain('from "resources"');
    }
  });
});

describe('a search whose documents answer it, counted and faceted', () => {
  it('gives the total and facets each limit allows, both read in one statement on PostgreSQL', async () => {
    const filters: Filter[] = [{ search: 'm' }, { search: 'granite ', tags: ['combat'], type: 'MOD' }];
    for (const filter of filters) {
      const all = expected(filter);
      const n = all.length;
      expect(n, JSON.stringify(filter)).toBeGreaterThan(3);
      // The cap and the facets' limit each below, at and above the matches, and either one the larger.
      const limits = [
        { countCap: n, facetScanLimit: n },
        { countCap: n - 1, facetScanLimit: n + 5 },
        { countCap: n + 5, facetScanLimit: n - 1 },
        { countCap: 2, facetScanLimit: 3 },
      ];
      for (const limit of limits) {
        const label = `${JSON.stringify(filter)} ${JSON.stringify(limit)}`;
        await withLimits(limit, async () => {
          let body: Catalogue | undefined;
          const statements = await statementsOf(async () => {
            body = await list(query(filter, `&limit=2&facets=type,tags,categories,gameVersions`));
          });
          const { meta } = body!;
          const totalExact = n <= limit.countCap;
          const facetsExact = n <= limit.facetScanLimit;
          expect(meta, label).toMatchObject({
            total: totalExact ? n : limit.countCap,
            totalExact,
            facetsExact,
          });
          if (facetsExact) expect(meta.facets, label).toEqual(expectedFacets(all));
          else expectFirstMatchesFacets(meta.facets!, expectedFacets(all), limit.facetScanLimit);
          // The page is the first of the matches either way.
          expect(
            body!.resources.map((r) => r.id),
            label,
          ).toEqual(all.slice(0, 2).map((e) => e.resource.id));
          if (t.app.context.database.dialect !== 'postgres') return;
          const matching = statements.filter(({ text }) => text.includes('resource_search_vectors'));
          const counts = matching.filter(({ text }) => text.includes('count(*)'));
          expect(counts, label).toHaveLength(1);
          expect(counts[0]!.text, label).toMatch(
            /^with m as materialized \(select v\.resource_id, v\.facet_codes/,
          );
        });
      }
    }
  });
});

describe('PostgreSQL: a search typed as a prefix with small catalog lists', () => {
  // Below SEARCH_LIMITS.facetTermsFrom link rows a list is joined and its resources' documents tested, but for a
  // prefix longer than the documents' prefix terms: it completes to few words, so GIN intersects it with the
  // lists' facet terms as cheaply as a whole word's.
  const cases: Array<[Filter, 'terms' | 'joined']> = [
    [{ search: 'granite', tags: ['combat'] }, 'terms'],
    [{ search: 'granite', tags: ['combat'], type: 'MOD' }, 'terms'],
    [{ search: 'r', tags: ['combat'] }, 'joined'],
  ];
  it.each(cases)('%j: read as %s, the matches exact', async (filter, read) => {
    expect(expected(filter).length, JSON.stringify(filter)).toBeGreaterThan(1);
    const statements = await statementsOf(async () => {
      const body = await list(query(filter, '&limit=50'));
      expect(body.resources.map((r) => r.id)).toEqual(expected(filter).map((e) => e.resource.id));
      expect(body.meta).toMatchObject({ total: expected(filter).length, totalExact: true });
    });
    if (t.app.context.database.dialect !== 'postgres') return;
    const terms = statements.filter(({ params }) => params.some((p) => String(p).includes('#tag/')));
    const joined = statements.filter(({ text }) => text.includes('from "resource_tag_links" as "l"'));
    expect(terms.length > 0, JSON.stringify(filter)).toBe(read === 'terms');
    expect(joined.length > 0, JSON.stringify(filter)).toBe(read === 'joined');
  });
});

describe('a count run beside the page (relevance)', () => {
  // A search alone: its count reads the documents alone, and could list them.
  const cases = FILTERS.filter((filter) => filter.search !== undefined && Object.keys(filter).length === 1);
  it('lists no documents on PostgreSQL, and its total stays exact', async () => {
    expect(cases.length).toBeGreaterThan(5);
    const cap = 10_000;
    let beside = 0;
    for (const filter of cases) {
      t.clock.advance(5001);
      const statements = await statementsOf(async () => {
        const body = await list(query(filter, '&sortBy=relevance&limit=5'));
        expect(body.meta, JSON.stringify(filter)).toMatchObject({
          total: expected(filter).length,
          totalExact: true,
        });
      });
      if (t.app.context.database.dialect !== 'postgres') continue;
      // The whole search's count, to the cap (its LIMIT is cap + 1), without the documents' array; a name
      // tier's count to the cap may list its documents (the page reads them).
      const whole = statements.filter(
        ({ text, params }) =>
          text.startsWith('select count(*) as count') &&
          params.includes(cap + 1) &&
          !text.includes('json_agg'),
      );
      expect(whole, JSON.stringify(filter)).toHaveLength(1);
      beside += 1;
    }
    if (t.app.context.database.dialect === 'postgres') expect(beside).toBeGreaterThan(5);
  });
});
