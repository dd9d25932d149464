// GET /servers?search= on the full-text index, against a brute-force reading of a fixed corpus built through the
// app: which servers match (every word, last as prefix, folded), totals, sort=relevance orderings and paging,
// facets=tags,categories counts, and the 400s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createPersonas, createUser } from '../helpers/factories.js';
import type { Personas, TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import { catalogs, createServer, moderate } from '../servers/helpers.js';
import type { CatalogRef } from '../servers/helpers.js';
import { createTeam } from '../teams/helpers.js';
import { parseSearch, stripMarkdown, words } from '../../src/modules/search/text.js';
import { catalogFacetsOf } from '../../src/modules/search/facets-catalog.js';
import type { CatalogFacet } from '../../src/modules/search/facets-catalog.js';
import { SEARCH_LIMITS } from '../../src/modules/search/resource-facets.js';
import { phrasesHold } from './phrases.js';
import { withSearchLimits } from './search-limits.js';

const W = [
  'amber',
  'birch',
  'cedar',
  'delta',
  'ember',
  'fjord',
  'glacier',
  'hollow',
  'ivory',
  'juniper',
  'kestrel',
];

interface Entry {
  id: string;
  name: string;
  approved: boolean;
  tagSlugs: string[];
  categorySlugs: string[];
  tagIds: string[];
  categoryIds: string[];
  /** Indexed words per field, in weight order: name, keywords, body, owner. */
  fields: string[][];
}

interface ListItem {
  id: string;
  name: string;
  rank: number | null;
}
interface ListBody {
  servers: ListItem[];
  total: number;
  meta: {
    total: number;
    facets?: { tags?: Record<string, number>; categories?: Record<string, number> };
    facetsExact?: boolean;
    totalExact?: boolean;
  };
}

let t: TestApp;
let p: Personas;
const corpus: Entry[] = [];
let tags: CatalogRef[];
let categories: CatalogRef[];

async function list(query: string): Promise<ListBody> {
  const response = await t.app.inject({ method: 'GET', url: `/servers?${query}` });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as ListBody;
}

/** Does a field set hold every word (the last as a prefix when typed so) and every phrase typed joined? */
function holds(fields: string[][], search: string): boolean {
  const query = parseSearch(search)!;
  const fieldWords = fields.flat();
  const allWords = query.terms.every((term, index) => {
    const prefix = query.prefixLast && index === query.terms.length - 1;
    return fieldWords.some((word) => (prefix ? word.startsWith(term) : word === term));
  });
  return allWords && phrasesHold(fields, search);
}

const matches = (entry: Entry, search: string) => entry.approved && holds(entry.fields, search);

function tier(entry: Entry, search: string): number {
  if (entry.fields[0]!.join(' ') === parseSearch(search)!.terms.join(' ')) return 0;
  for (let k = 1; k < 4; k++) if (holds(entry.fields.slice(0, k), search)) return k;
  return 4;
}

function expected(search: string | null, filter: { tags?: string[]; categories?: string[] } = {}): Entry[] {
  return corpus.filter(
    (entry) =>
      entry.approved &&
      (search === null || matches(entry, search)) &&
      (filter.tags === undefined || filter.tags.some((id) => entry.tagIds.includes(id))) &&
      (filter.categories === undefined || filter.categories.some((id) => entry.categoryIds.includes(id))),
  );
}

function facetCounts(entries: Entry[], pick: (entry: Entry) => string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const entry of entries) for (const slug of pick(entry)) counts[slug] = (counts[slug] ?? 0) + 1;
  return counts;
}

beforeAll(async () => {
  t = await buildTestApp();
  p = await createPersonas(t.app);
  ({ tags, categories } = await catalogs(t.app));
  const orchid = await createUser(t.app);
  await t.app.inject({
    method: 'PATCH',
    url: '/users/me',
    headers: orchid.headers,
    payload: { displayName: 'Orchid Keeper' },
  });
  const plain = await createUser(t.app);
  const team = await createTeam(t.app, p.user, { name: 'Granite Union' });
  const owners: Array<{ user: TestUser; body: Record<string, unknown>; words: string[] }> = [
    { user: orchid, body: {}, words: words(`${orchid.username} Orchid Keeper`) },
    { user: plain, body: {}, words: words(plain.username) },
    { user: p.user, body: { ownerType: 'TEAM', ownerId: team.id }, words: words('Granite Union') },
  ];
  for (let i = 0; i < 36; i++) {
    const name =
      i % 9 === 4
        ? 'Émber Hollow'
        : `${W[i % W.length]!}${i % 3 === 0 ? ` ${W[(i * 5 + 1) % W.length]!}` : ''} ${i}`;
    const shortDescription = `${W[(i * 7 + 3) % W.length]!} world`;
    const description = `## ${W[(i * 3 + 5) % W.length]!}\n\nSee [our site](https://x.test/${W[i % W.length]!}).`;
    const entryTags = [tags[i % 6]!, ...(i % 4 === 0 ? [tags[6]!] : [])];
    const entryCategories = [categories[i % 3]!];
    const owner = owners[i % 3]!;
    const server = await createServer(t.app, owner.user, {
      name,
      shortDescription,
      description,
      tagIds: entryTags.map((tag) => tag.id),
      categoryIds: entryCategories.map((category) => category.id),
      ...owner.body,
    });
    const approved = i % 8 < 6;
    if (approved) await moderate(t.app, p.moderator, server.id, 'approve');
    else if (i % 8 === 6) await moderate(t.app, p.moderator, server.id, 'reject');
    corpus.push({
      id: server.id,
      name,
      approved,
      tagSlugs: entryTags.map((tag) => tag.slug),
      categorySlugs: entryCategories.map((category) => category.slug),
      tagIds: entryTags.map((tag) => tag.id),
      categoryIds: entryCategories.map((category) => category.id),
      fields: [
        words(name),
        words([...entryTags, ...entryCategories].map((ref) => ref.name).join(' ') + ` ${shortDescription}`),
        words(stripMarkdown(description)),
        owner.words,
      ],
    });
  }
});
afterAll(async () => t.close());

const SEARCHES = [
  'amber',
  'AMBER',
  'ember',
  'Ember hollow',
  'émber ',
  'emb',
  'gla',
  'j',
  'g',
  'glacier ',
  'cedar world',
  'world',
  'world ',
  'wor',
  'hollow amber',
  'orchid',
  'granite union',
  'keeper amb',
  'site',
  'https',
  'fjord 7',
  'nothingmatches',
  // Words typed joined: adjacent and in order within one field (phrasesHold).
  'ember-hollow',
  'émber_ho',
  'hollow-ember',
  'orchid-keeper',
  'keeper-orchid',
  'world-granite',
  'granite-union world',
];

describe('GET /servers?search=', () => {
  it('finds exactly the approved servers whose words all match, last as a prefix; total is exact', async () => {
    for (const search of SEARCHES) {
      const body = await list(`search=${encodeURIComponent(search)}&limit=100`);
      const want = expected(search).map((entry) => entry.id);
      expect(body.servers.map((server) => server.id).sort(), search).toEqual([...want].sort());
      expect(body.total, search).toBe(want.length);
      expect(body.meta.total, search).toBe(want.length);
    }
    // The corpus is built so the interesting cases are not empty, and a prefix finds more than the whole word.
    expect(expected('ember ').length).toBeGreaterThan(0);
    expect(expected('orchid').length).toBeGreaterThan(0);
    expect(expected('g').length).toBeGreaterThan(expected('glacier ').length);
    expect(expected('glacier ').length).toBeGreaterThan(0);
    expect(expected('ember-hollow').length).toBeGreaterThan(0);
    expect(expected('orchid-keeper').length).toBeGreaterThan(0);
    expect(expected('hollow-ember')).toEqual([]);
    // "… world" ends the keywords and "granite union" starts the owner field: no phrase across two fields.
    expect(expected('world granite').length).toBeGreaterThan(0);
    expect(expected('world-granite')).toEqual([]);
  });

  it('keeps the rank order by default, with a search', async () => {
    const body = await list('search=world&limit=100');
    const ranks = body.servers.map((server) => server.rank!);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  });

  it('combines the search with tag and category filters; totals exact, also on page 2', async () => {
    const filters = [
      { tags: [tags[0]!.id] },
      { tags: [tags[1]!.id, tags[6]!.id] },
      { categories: [categories[2]!.id] },
      { tags: [tags[6]!.id], categories: [categories[0]!.id, categories[1]!.id] },
    ];
    for (const filter of filters) {
      for (const search of [null, 'world', 'amb', 'hollow']) {
        const query = [
          search === null ? '' : `search=${encodeURIComponent(search)}`,
          filter.tags ? `tags=${filter.tags.join(',')}` : '',
          'categories' in filter ? `categories=${filter.categories!.join(',')}` : '',
        ]
          .filter((part) => part !== '')
          .join('&');
        const want = expected(search, filter);
        const first = await list(`${query}&limit=2`);
        const second = await list(`${query}&limit=2&offset=2`);
        expect(first.total, query).toBe(want.length);
        expect(second.total, query).toBe(want.length);
        expect(second.servers.length, query).toBe(Math.max(0, Math.min(2, want.length - 2)));
      }
    }
  });

  it('sort=relevance: by tier (exact name, name, keywords, description, owner), then rank; pages do not overlap', async () => {
    for (const search of [
      'amber',
      'ember hollow',
      'emb',
      'hollow',
      'world',
      'cedar',
      'orchid',
      'delta',
      'ivory',
    ]) {
      const body = await list(`search=${encodeURIComponent(search)}&sort=relevance&limit=100`);
      const byId = new Map(corpus.map((entry) => [entry.id, entry]));
      const keys = body.servers.map((server) => [tier(byId.get(server.id)!, search), server.rank!] as const);
      const sorted = [...keys].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      expect(keys, search).toEqual(sorted);
      expect(body.servers.length).toBe(expected(search).length);
      const paged: string[] = [];
      for (let offset = 0; offset < body.total; offset += 3) {
        const page = await list(
          `search=${encodeURIComponent(search)}&sort=relevance&limit=3&offset=${offset}`,
        );
        paged.push(...page.servers.map((server) => server.id));
      }
      expect(paged, search).toEqual(body.servers.map((server) => server.id));
    }
    // A name match ranks above matches in the other fields, whatever their rank.
    const tiers = (await list('search=ember%20hollow&sort=relevance&limit=100')).servers.map((server) =>
      tier(
        corpus.find((entry) => entry.id === server.id)!,
        'ember hollow',
      ),
    );
    expect(tiers[0]).toBe(0);
    expect(new Set(tiers).size).toBeGreaterThan(1);
  });

  it('a search with tags or categories totals and lists exactly the approved matches linked to every list', async () => {
    const filters: Array<{ tags?: string[]; categories?: string[] }> = [
      { tags: [tags[0]!.id] },
      { tags: [tags[0]!.id, tags[6]!.id] },
      { categories: [categories[1]!.id] },
      { tags: [tags[6]!.id], categories: [categories[0]!.id, categories[1]!.id] },
    ];
    // Servers that are not APPROVED carry these tags and words too (the corpus rejects or leaves a quarter).
    expect(corpus.some((entry) => !entry.approved && entry.tagIds.includes(tags[0]!.id))).toBe(true);
    for (const search of ['world', 'amb', 'ember hollow', 'nothingmatches']) {
      for (const filter of filters) {
        const lists = [
          ...(filter.tags ? [`tags=${filter.tags.join(',')}`] : []),
          ...(filter.categories ? [`categories=${filter.categories.join(',')}`] : []),
        ];
        const want = expected(search, filter).map((entry) => entry.id);
        // Relevance reads the same documents (on PostgreSQL the lists are their terms, migration 0040).
        for (const sort of ['', '&sort=relevance']) {
          const base = `search=${encodeURIComponent(search)}&${lists.join('&')}${sort}`;
          const query = `${base}&limit=100`;
          const body = await list(query);
          expect(body.servers.map((server) => server.id).sort(), query).toEqual([...want].sort());
          expect(body.total, query).toBe(want.length);
          if (sort === '') continue;
          // Each tier is read on its own with the lists (server-relevance.repo.ts): the order and the pages hold.
          const keys = body.servers.map((server) => {
            const entry = corpus.find((candidate) => candidate.id === server.id)!;
            return [tier(entry, search), server.rank!] as const;
          });
          expect(keys, query).toEqual([...keys].sort((a, b) => a[0] - b[0] || a[1] - b[1]));
          const paged: string[] = [];
          for (let offset = 0; offset < body.total; offset += 2) {
            paged.push(
              ...(await list(`${base}&limit=2&offset=${offset}`)).servers.map((server) => server.id),
            );
          }
          expect(paged, query).toEqual(body.servers.map((server) => server.id));
        }
      }
    }
    expect(expected('world', { tags: [tags[0]!.id] }).length).toBeGreaterThan(0);
    expect(corpus.some((entry) => !entry.approved && holds(entry.fields, 'world'))).toBe(true);
  });

  it('sort=relevance without a search is the rank order', async () => {
    const [byRelevance, byRank] = await Promise.all([list('sort=relevance&limit=100'), list('limit=100')]);
    expect(byRelevance.servers.map((server) => server.id)).toEqual(byRank.servers.map((server) => server.id));
  });

  it('facets=tags,categories count every match of the search and filters, like a brute-force count', async () => {
    const cases: Array<[string, Entry[]]> = [
      ['', expected(null)],
      ['search=world', expected('world')],
      ['search=amb', expected('amb')],
      [`tags=${tags[6]!.id}`, expected(null, { tags: [tags[6]!.id] })],
      // Lists alone are read from one list's links (a server with both tags counts once), the others probed.
      [`tags=${tags[0]!.id},${tags[6]!.id}`, expected(null, { tags: [tags[0]!.id, tags[6]!.id] })],
      [
        `tags=${tags[6]!.id}&categories=${categories[0]!.id},${categories[1]!.id}`,
        expected(null, { tags: [tags[6]!.id], categories: [categories[0]!.id, categories[1]!.id] }),
      ],
      [
        `search=world&categories=${categories[1]!.id}`,
        expected('world', { categories: [categories[1]!.id] }),
      ],
      [
        `search=amb&tags=${tags[0]!.id},${tags[6]!.id}&categories=${categories[0]!.id}`,
        expected('amb', { tags: [tags[0]!.id, tags[6]!.id], categories: [categories[0]!.id] }),
      ],
      ['search=nothingmatches', []],
    ];
    for (const [query, entries] of cases) {
      const body = await list(`${query}&facets=tags,categories&limit=1`);
      expect(body.meta.facets?.tags, query).toEqual(facetCounts(entries, (entry) => entry.tagSlugs));
      expect(body.meta.facets?.categories, query).toEqual(
        facetCounts(entries, (entry) => entry.categorySlugs),
      );
      expect(body.meta.facetsExact, query).toBe(true);
    }
    const onlyTags = await list('facets=tags');
    expect(Object.keys(onlyTags.meta.facets!)).toEqual(['tags']);
    expect((await list('search=world')).meta.facets).toBeUndefined();
    // Ordered by count, then slug: the catalog's usage counts and a filter's counts alike.
    for (const query of ['facets=tags', 'search=world&facets=tags,categories']) {
      for (const facet of Object.values((await list(query)).meta.facets!)) {
        const counts = Object.entries(facet);
        const ordered = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
        expect(counts, query).toEqual(ordered);
      }
    }
  });

  it('counts every asked facet in one statement, each its top values by count, then slug', async () => {
    const facet = (links: string, entry: string, catalog: string): CatalogFacet => ({
      links,
      object: 'server_id',
      entry,
      catalog,
      key: 'slug',
    });
    const matching = t.app.context.database.db.selectFrom('server_search').select('server_search.server_id');
    const top = await catalogFacetsOf(
      t.app.context.database.db,
      [
        ['tags', facet('server_tag_links', 'tag_id', 'server_tags')],
        ['categories', facet('server_category_links', 'category_id', 'server_categories')],
      ],
      matching,
      2,
    );
    const approved = expected(null);
    const topTwo = (counts: Record<string, number>) =>
      Object.fromEntries(
        Object.entries(counts)
          .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
          .slice(0, 2),
      );
    expect(top.tags).toEqual(topTwo(facetCounts(approved, (entry) => entry.tagSlugs)));
    expect(top.categories).toEqual(topTwo(facetCounts(approved, (entry) => entry.categorySlugs)));
    expect(Object.keys(top.tags)).toHaveLength(2);
  });

  it('past facetScanLimit matches counts that many only: facetsExact false, each count a lower bound', async () => {
    const saved = SEARCH_LIMITS.facetScanLimit;
    SEARCH_LIMITS.facetScanLimit = 5;
    try {
      const cases: Array<[string, Entry[]]> = [
        ['search=world', expected('world')],
        [`tags=${tags[6]!.id}`, expected(null, { tags: [tags[6]!.id] })],
      ];
      for (const [query, entries] of cases) {
        expect(entries.length, query).toBeGreaterThan(5);
        // limit=3: a page the other tests did not ask (pages are cached for 5 s).
        const body = await list(`${query}&facets=tags,categories&limit=3`);
        expect(body.total, query).toBe(entries.length);
        expect(body.meta.facetsExact, query).toBe(false);
        const tagCounts = facetCounts(entries, (entry) => entry.tagSlugs);
        for (const [slug, count] of Object.entries(body.meta.facets!.tags!)) {
          expect(count, `${query} ${slug}`).toBeLessThanOrEqual(tagCounts[slug]!);
        }
        // Every server has exactly one category: the category counts add up to the servers counted.
        const counted = Object.values(body.meta.facets!.categories!).reduce((sum, count) => sum + count, 0);
        expect(counted, query).toBe(5);
      }
      // Two tags: the servers counted are distinct, though some carry both (read from one tag's links, then the
      // other's, those with both come twice): whatever the limit below the matches, it is filled once each.
      const twoTags = expected(null, { tags: [tags[0]!.id, tags[6]!.id] });
      for (let limit = 1; limit < twoTags.length; limit++) {
        SEARCH_LIMITS.facetScanLimit = limit;
        t.clock.advance(5001);
        const counted = await list(`tags=${tags[0]!.id},${tags[6]!.id}&facets=categories&limit=3`);
        expect(counted.meta.facetsExact).toBe(false);
        const sum = Object.values(counted.meta.facets!.categories!).reduce(
          (total, count) => total + count,
          0,
        );
        expect(sum, `facetScanLimit ${limit}`).toBe(limit);
      }
      SEARCH_LIMITS.facetScanLimit = 5;
      // At most facetScanLimit matches: exact. Without a filter: the maintained counters, always exact.
      const few = expected('ember-hollow');
      expect(few.length).toBeLessThanOrEqual(5);
      const exact = await list('search=ember-hollow&facets=categories&limit=3');
      expect(exact.meta).toMatchObject({ facetsExact: true });
      expect(exact.meta.facets!.categories).toEqual(facetCounts(few, (entry) => entry.categorySlugs));
      expect((await list('facets=tags&limit=3')).meta.facetsExact).toBe(true);
    } finally {
      SEARCH_LIMITS.facetScanLimit = saved;
    }
  });

  /** Every page of a query, 3 at a time, with the limits given (the clock passes the page cache). */
  const pages = async (query: string, limits: Partial<typeof SEARCH_LIMITS>) => {
    const saved = { ...SEARCH_LIMITS };
    Object.assign(SEARCH_LIMITS, limits);
    t.clock.advance(5001);
    try {
      const ids: string[] = [];
      const metas: ListBody['meta'][] = [];
      for (let offset = 0; offset < 60; offset += 3) {
        const body = await list(`${query}&limit=3&offset=${offset}`);
        ids.push(...body.servers.map((server) => server.id));
        metas.push(body.meta);
        if (body.servers.length < 3) break;
      }
      return { ids, metas };
    } finally {
      Object.assign(SEARCH_LIMITS, saved);
    }
  };

  it('counts to the cap (totalExact false past it) and pages the same when it tests rows of the sort index', async () => {
    const searches = SEARCHES.filter((search) => expected(search).length > 5);
    expect(searches.length).toBeGreaterThan(3);
    for (const search of [...searches, 'ember-hollow', 'nothingmatches']) {
      const want = expected(search).length;
      for (const sort of ['rank', 'newest', 'players', 'votes']) {
        const query = `search=${encodeURIComponent(search)}&sort=${sort}`;
        const gathered = await pages(query, { scanRows: 0 });
        const scanned = await pages(query, { countCap: 5, scanRows: 1e9 });
        expect(scanned.ids, query).toEqual(gathered.ids);
        expect(gathered.ids, query).toHaveLength(want);
        for (const meta of gathered.metas) expect(meta).toMatchObject({ total: want, totalExact: true });
        for (const meta of scanned.metas) {
          expect(meta, query).toMatchObject(
            want > 5 ? { total: 5, totalExact: false } : { total: want, totalExact: true },
          );
        }
      }
    }
    // One tag alone answers from its maintained usage count: exact past the cap; with a search it is counted.
    const tagged = expected(null, { tags: [tags[6]!.id] }).length;
    expect(tagged).toBeGreaterThan(5);
    const alone = await pages(`tags=${tags[6]!.id}`, { countCap: 5 });
    expect(alone.metas[0]).toMatchObject({ total: tagged, totalExact: true });
    const searched = expected('world', { tags: [tags[6]!.id] }).length;
    expect(searched).toBeGreaterThan(5);
    const withSearch = await pages(`tags=${tags[6]!.id}&search=world`, { countCap: 5 });
    expect(withSearch.metas[0]).toMatchObject({ total: 5, totalExact: false });
  });

  it('stops the pages of a search at its first resultWindow matches, in every order; lists alone go on', async () => {
    const search = SEARCHES.find((candidate) => expected(candidate).length > 7)!;
    const want = expected(search).length;
    for (const sort of ['rank', 'newest', 'relevance']) {
      const query = `search=${encodeURIComponent(search)}&sort=${sort}`;
      const whole = await pages(query, {});
      const windowed = await pages(query, { resultWindow: 7 });
      // Pages of 3: the third ends at the window (its first item only), the fourth starts past it and is empty.
      expect(windowed.ids, query).toEqual(whole.ids.slice(0, 7));
      expect(windowed.metas, query).toHaveLength(3);
      for (const meta of windowed.metas) expect(meta, query).toMatchObject({ total: want, totalExact: true });
      await withSearchLimits(t.clock, { resultWindow: 7 }, async () => {
        const past = await list(`${query}&limit=3&offset=9&facets=tags`);
        expect(past.servers, query).toEqual([]);
        expect(past.meta, query).toMatchObject({ total: want, totalExact: true, facetsExact: true });
      });
    }
    const lists = `tags=${tags[6]!.id}`;
    expect((await pages(lists, { resultWindow: 2 })).ids).toEqual((await pages(lists, {})).ids);
    expect((await pages(lists, {})).ids.length).toBeGreaterThan(2);
  });

  it('catalog lists alone page the same walking the sort index (probing links) as gathering the matches', async () => {
    const filters = [
      { tags: [tags[6]!.id] },
      { tags: [tags[0]!.id, tags[6]!.id] },
      { tags: [tags[6]!.id], categories: [categories[0]!.id, categories[1]!.id] },
      { categories: [categories[2]!.id] },
    ];
    // Some server carries both tags: it must come once.
    const both = (entry: Entry) => entry.tagIds.includes(tags[0]!.id) && entry.tagIds.includes(tags[6]!.id);
    expect(expected(null).some(both)).toBe(true);
    for (const filter of filters) {
      const want = expected(null, filter);
      expect(want.length, JSON.stringify(filter)).toBeGreaterThan(3);
      for (const sort of ['rank', 'newest', 'players', 'votes', 'relevance']) {
        const query = [
          `sort=${sort}`,
          filter.tags ? `tags=${filter.tags.join(',')}` : '',
          filter.categories ? `categories=${filter.categories.join(',')}` : '',
        ]
          .filter((part) => part !== '')
          .join('&');
        const gathered = await pages(query, { walkFromMatches: 1e9 });
        const walked = await pages(query, { walkFromMatches: 0, walkRatio: 0 });
        expect(walked.ids, query).toEqual(gathered.ids);
        expect([...gathered.ids].sort(), query).toEqual(want.map((entry) => entry.id).sort());
      }
    }
  });

  it('refuses unknown facets and sorts with 400 in the one error shape', async () => {
    for (const query of ['facets=type', 'facets=tags,owners', 'sort=best']) {
      expectError(await t.app.inject({ method: 'GET', url: `/servers?${query}` }), 400, 'INVALID_REQUEST');
    }
  });
});
