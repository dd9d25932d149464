// GET /resources?search=: full-text matching (every word, the last as a prefix, case and diacritics folded, any
// order), relevance (field tiers, then popularity; the same order on SQLite and PostgreSQL) and typo
// tolerance (PostgreSQL only).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_LIMITS } from '../../src/modules/search/resource-facets.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { createResource, moderate, readCatalogs } from '../resources/helpers.js';
import type { ResourceBody } from '../resources/helpers.js';
import { listCatalogue } from './catalogue.js';

const POSTGRES = process.env['TEST_DATABASE_URL'] !== undefined;

let t: TestApp;
let author: TestUser;
let moderator: TestUser;
const made = new Map<string, ResourceBody>();

async function add(
  name: string,
  body: Record<string, unknown> = {},
  owner: TestUser = author,
  approve = true,
): Promise<ResourceBody> {
  t.clock.advance(1000);
  let resource = await createResource(t.app, owner, { name, shortDescription: 'Nothing special', ...body });
  if (approve) resource = await moderate(t.app, moderator, resource.id, 'APPROVE');
  made.set(name, resource);
  return resource;
}

beforeAll(async () => {
  t = await buildTestApp();
  [author, moderator] = await Promise.all([
    createUser(t.app, { username: 'plain_author' }),
    createUser(t.app, { role: 'MODERATOR' }),
  ]);
  const zephyrOwner = await createUser(t.app, { username: 'zephyr_maker' });
  const magic = (await readCatalogs(t.app)).tags.find((tag) => tag.slug === 'magic')!;
  await add('Zephyr Winds', { shortDescription: 'Breezes for all' });
  await add('Zephyr Gales', { shortDescription: 'Strong gusts' });
  await add('Sky Tools', { shortDescription: 'A zephyr of utilities' });
  await add('Weather Pack', { description: 'Includes a gentle **zephyr** effect.' });
  await add('Cloud Shapes', { shortDescription: 'Shapes of clouds' }, zephyrOwner);
  await add('Zephyrus Temple', { shortDescription: 'An old temple' });
  await add('Zephyr Pending', {}, author, false);
  await add('Café Racer', { shortDescription: 'Fast bikes' });
  await add('Uber Tools', { shortDescription: 'Everything' });
  await add('Straße Builder', { shortDescription: 'Roads' });
  await add('Epic Trees', { shortDescription: 'Forest generation' });
  await add('Magic Wands', { shortDescription: 'Sparkles' });
  await add('Arcane Stones', { shortDescription: 'Glowing rocks', tagIds: [magic.id] });
}, 60_000);
afterAll(async () => t.close());

const list = (query: string) => listCatalogue(t, query);
const search = async (text: string, extra = '') =>
  (await list(`search=${encodeURIComponent(text)}&limit=100${extra}`)).resources.map((r) => r.name);
const byRelevance = (text: string) => search(text, '&sortBy=relevance');

describe('matching', () => {
  it('finds every word in any field, the last one as a prefix while it is being typed', async () => {
    expect(await search('zephyr')).toEqual([
      'Zephyrus Temple',
      'Cloud Shapes',
      'Weather Pack',
      'Sky Tools',
      'Zephyr Gales',
      'Zephyr Winds',
    ]);
    // A space after the last word ends it: whole words only.
    expect(await search('zephyr ')).toEqual([
      'Cloud Shapes',
      'Weather Pack',
      'Sky Tools',
      'Zephyr Gales',
      'Zephyr Winds',
    ]);
    expect(await search('zep')).toHaveLength(6);
    expect(await search('zephyrus')).toEqual(['Zephyrus Temple']);
    expect(await search('zephyr winds')).toEqual(['Zephyr Winds']);
    expect(await search('zephyr w')).toEqual(['Weather Pack', 'Zephyr Winds']);
    expect(await search('zephyr ga')).toEqual(['Zephyr Gales']);
    expect(await search('gentle zephyr')).toEqual(['Weather Pack']);
  });

  it('ignores case, diacritics and word order', async () => {
    expect(await search('cafe')).toEqual(['Café Racer']);
    expect(await search('CAFÉ')).toEqual(['Café Racer']);
    expect(await search('über')).toEqual(['Uber Tools']);
    expect(await search('UBER')).toEqual(['Uber Tools']);
    expect(await search('strasse')).toEqual(['Straße Builder']);
    expect(await search('trees epic')).toEqual(['Epic Trees']);
    expect(await search('EPIC-trees!')).toEqual(['Epic Trees']);
  });

  it('matches words typed joined (a-b, a_b, a.b) only where they stand adjacent and in order', async () => {
    /** What the full-text match found: PostgreSQL answers a search that matched nothing by its typo fallback. */
    const matched = async (text: string, more = '&limit=100') => {
      const body = await list(`search=${encodeURIComponent(text)}${more}`);
      expect(body.meta.similar === true && !POSTGRES).toBe(false);
      return body.meta.similar === true ? [] : body.resources.map((r) => r.name);
    };
    expect(await search('winds zephyr')).toEqual(['Zephyr Winds']);
    expect(await matched('winds-zephyr')).toEqual([]);
    // Relevance's top tier (every word in the name) holds the phrase too: "Zephyr Winds" has both words in its
    // name, not joined in that order, and a one-row page is all that tier would have to fill. Scanning off, the
    // tier is read from the full-text index (a scan tests the phrase in the text columns).
    const { scanRows } = SEARCH_LIMITS;
    try {
      SEARCH_LIMITS.scanRows = 0;
      expect(await matched('winds-zephyr', '&sortBy=relevance&limit=1')).toEqual([]);
    } finally {
      SEARCH_LIMITS.scanRows = scanRows;
    }
    expect(await search('zephyr-winds')).toEqual(['Zephyr Winds']);
    expect(await search('zephyr_winds')).toEqual(['Zephyr Winds']);
    // The last word is still a prefix. Apart, "w" may start any word ("Weather Pack"); joined, it must start the
    // word right after "zephyr".
    expect(await search('zephyr w')).toEqual(['Weather Pack', 'Zephyr Winds']);
    expect(await search('zephyr.w')).toEqual(['Zephyr Winds']);
    expect(await matched('zephyr.w ')).toEqual([]);
    // Adjacent in the description once markdown is stripped; other words may be typed apart around a phrase.
    expect(await search('gentle-zephyr')).toEqual(['Weather Pack']);
    expect(await search('includes gentle-zephyr eff')).toEqual(['Weather Pack']);
    const body = await list(`search=${encodeURIComponent('zephyr-winds')}&sortBy=relevance`);
    expect(body.meta).toMatchObject({ total: 1, totalExact: true });
  });

  it('treats a search without letters or digits as no search', async () => {
    const all = await list('limit=100');
    for (const text of ['?!', '  ', '%', '***']) {
      const body = await list(`search=${encodeURIComponent(text)}&limit=100`);
      expect(body.resources.map((r) => r.id)).toEqual(all.resources.map((r) => r.id));
      expect(body.total).toBe(all.total);
    }
  });

  it('never finds a resource that is not APPROVED', async () => {
    expect(await search('pending')).toEqual([]);
    expect((await list('search=pending')).meta).toMatchObject({ total: 0, totalExact: true });
  });
});

describe('relevance', () => {
  it('ranks name above tags and short description above description above owner names', async () => {
    expect(await byRelevance('zephyr')).toEqual([
      // Three name matches tie on text and popularity: newest first.
      'Zephyrus Temple',
      'Zephyr Gales',
      'Zephyr Winds',
      'Sky Tools',
      'Weather Pack',
      'Cloud Shapes',
    ]);
    expect(await byRelevance('magic')).toEqual(['Magic Wands', 'Arcane Stones']);
    // Both words count: a name match of each beats one word in the name.
    expect(await byRelevance('zephyr winds')).toEqual(['Zephyr Winds']);
  });

  it('lets popularity reorder near-ties but never lift a lower field above a higher one', async () => {
    const { db } = t.app.context.database;
    const set = async (name: string, downloads: number, like_count: number) =>
      db
        .updateTable('resources')
        .set({ downloads, like_count })
        .where('id', '=', made.get(name)!.id)
        .execute();
    await set('Zephyr Gales', 500, 3);
    await set('Weather Pack', 50_000_000, 2_000_000);
    await set('Cloud Shapes', 10_000, 10);
    // Written behind the application's back: cached pages expire within 5 s.
    t.clock.advance(5001);
    expect(await byRelevance('zephyr')).toEqual([
      'Zephyr Gales',
      'Zephyrus Temple',
      'Zephyr Winds',
      'Sky Tools',
      'Weather Pack',
      'Cloud Shapes',
    ]);
    // The default order stays newest first, with a search too.
    expect((await search('zephyr'))[0]).toBe('Zephyrus Temple');
  });

  it('orders by text score first and by popularity only among equal text scores', async () => {
    await add('Quokka Den', { description: 'Where a nimbus gathers.' });
    const popular = await add('Plain Burrow', { shortDescription: 'Quokka nimbus companions' });
    await add('Quokka Hut', { description: 'Under a nimbus.' });
    // Text scores: Den and Hut 27 + 3 = 30, Burrow 9 + 9 = 18. Multiplied by its popularity (2.875, the cap)
    // Burrow would score 51.75 and come first; ordered by text score it comes last, Hut before Den on the id.
    await t.app.context.database.db
      .updateTable('resources')
      .set({ downloads: 1_000_000, like_count: 100_000 })
      .where('id', '=', popular.id)
      .execute();
    t.clock.advance(5001);
    expect(await byRelevance('quokka nimbus')).toEqual(['Quokka Hut', 'Quokka Den', 'Plain Burrow']);
    // Pages of one: the matches with a word in the name fill them alone, then the rest.
    const page = async (n: number) =>
      (await list(`search=quokka%20nimbus&sortBy=relevance&limit=1&page=${n}`)).resources.map((r) => r.name);
    expect([...(await page(1)), ...(await page(2)), ...(await page(3))]).toEqual([
      'Quokka Hut',
      'Quokka Den',
      'Plain Burrow',
    ]);
  });

  it('without a search, is the downloads order', async () => {
    t.clock.advance(5001);
    const relevance = await list('sortBy=relevance&limit=100');
    const downloads = await list('sortBy=downloads&limit=100');
    expect(relevance.resources.map((r) => r.id)).toEqual(downloads.resources.map((r) => r.id));
    expect(relevance.resources[0]!.name).toBe('Weather Pack');
  });
});

describe('typo tolerance', () => {
  /** The names a search answers, and whether they came from the typo fallback. */
  const fuzzy = async (text: string) => {
    const body = await list(`search=${encodeURIComponent(text)}&limit=100`);
    expect(body.total).toBe(body.resources.length);
    return { names: body.resources.map((r) => r.name).sort(), similar: body.meta.similar === true };
  };

  it(
    POSTGRES
      ? 'PostgreSQL: a misspelt word of a one- or two-word search that finds nothing becomes the nearest name word'
      : 'SQLite: none, a misspelt search finds nothing',
    async () => {
      const body = await list('search=zephir&sortBy=relevance');
      if (POSTGRES) {
        // zephir → zephyr (not zephyrus: less similar), then searched as usual, in every field, by relevance.
        expect(body.meta.similar).toBe(true);
        expect(body.resources.map((r) => r.name)).toEqual(await byRelevance('zephyr '));
        expect(body.resources.map((r) => r.name)).toContain('Zephyr Gales');
        expect(body.resources.map((r) => r.name)).not.toContain('Zephyr Pending');
        // The word that matches is kept; only the one that matches nothing is corrected.
        expect(await fuzzy('zephyr windz')).toEqual({ names: ['Zephyr Winds'], similar: true });
        expect(await fuzzy('galez')).toEqual({ names: ['Zephyr Gales'], similar: true });
      } else {
        expect(body).toMatchObject({ resources: [], total: 0 });
        expect(body.meta.similar).toBeUndefined();
        expect(await fuzzy('zephyr windz')).toEqual({ names: [], similar: false });
      }
      // Searches that find something, of three words or more, or whose words each match but never together,
      // never fall back.
      expect((await list('search=zephyr')).meta.similar).toBeUndefined();
      const long = await list('search=zephir wnds galez');
      expect(long).toMatchObject({ resources: [], total: 0 });
      expect(long.meta.similar).toBeUndefined();
      expect(await fuzzy('zephyr racer')).toEqual({ names: [], similar: false });
      // Nothing near enough: no fallback either.
      expect(await fuzzy('qqqqqq')).toEqual({ names: [], similar: false });
    },
  );

  it('offers only the words of APPROVED names as they are now', async () => {
    const narwhal = await add('Narwhal Lagoon', { shortDescription: 'Arctic whales' });
    expect(await fuzzy('narwal')).toEqual(
      POSTGRES ? { names: ['Narwhal Lagoon'], similar: true } : { names: [], similar: false },
    );
    // Renamed: its old word is no longer offered, the new one is.
    const renamed = await t.app.inject({
      method: 'PATCH',
      url: `/resources/${narwhal.id}`,
      headers: author.headers,
      payload: { name: 'Pangolin Lagoon' },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(await fuzzy('narwal')).toEqual({ names: [], similar: false });
    expect(await fuzzy('pangolim')).toEqual(
      POSTGRES ? { names: ['Pangolin Lagoon'], similar: true } : { names: [], similar: false },
    );
    // Deleted: nothing of it is offered.
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/resources/${narwhal.id}`,
      headers: author.headers,
    });
    expect(deleted.statusCode, deleted.body).toBeLessThan(300);
    expect(await fuzzy('pangolim')).toEqual({ names: [], similar: false });
  });
});

describe('OpenAPI', () => {
  it('documents relevance, facets and the new meta fields', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<
        string,
        {
          get: {
            parameters: Array<{
              name: string;
              description?: string;
              schema: { enum?: string[]; items?: { enum?: string[] } };
            }>;
          };
        }
      >;
      components: { schemas: Record<string, { properties: Record<string, { description?: string }> }> };
    };
    const parameters = doc.paths['/resources']!.get.parameters;
    const sortBy = parameters.find((p) => p.name === 'sortBy')!;
    expect(sortBy.schema.enum).toContain('relevance');
    expect(sortBy.description ?? '').toMatch(/relevance/);
    const facets = parameters.find((p) => p.name === 'facets')!;
    expect(facets.description ?? '').toMatch(/gameVersions/);
    const meta = doc.components.schemas['ResourceCatalogueMeta']!.properties;
    for (const field of ['totalExact', 'facets', 'facetsExact', 'similar']) {
      expect(meta[field]!.description, field).toBeTruthy();
    }
  });
});
