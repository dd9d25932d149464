// Relevance's name tiers when the last word is typed as a prefix that several name words start with. PostgreSQL
// writes the prefix out as those words (search/name-words.ts withNameCompletions, at most
// SEARCH_LIMITS.nameCompletions of them) for the name's own index; every one of them must count, whichever is
// the most popular, and leaving the prefix as it is must give the same pages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SEARCH_LIMITS } from '../../src/modules/search/resource-facets.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import { createResource, moderate } from '../resources/helpers.js';
import { withSearchLimits } from './search-limits.js';

let t: TestApp;
const ids = new Map<string, string>();

/** Names whose words start with `lan` in four ways (lantern, lanterns, landing, lane), with the other words of the searches around them. */
const NAMES = [
  'Lantern Quest',
  'Lanterns Quest',
  'Landing Quest',
  'Quest Keep Lantern',
  'Keep Lanterns Quest',
  'Landing Keep Quest',
  'Keep Quest',
  'Quest Board',
  'Lane Keep',
];

beforeAll(async () => {
  t = await buildTestApp();
  const [author, moderator] = await Promise.all([
    createUser(t.app),
    createUser(t.app, { role: 'MODERATOR' }),
  ]);
  for (const name of NAMES) {
    t.clock.advance(1000);
    const created = await createResource(t.app, author, {
      name,
      // Matches without the prefix in the name: they rank below every name match.
      shortDescription: name.includes('Lan') ? 'Lights' : 'Lanterns and landings',
    });
    await moderate(t.app, moderator, created.id, 'APPROVE');
    ids.set(name, created.id);
  }
}, 60_000);

afterAll(async () => {
  await t.close();
});

/** The most popular resource is `favourite`; the rest by their place in NAMES. */
async function favour(favourite: string): Promise<void> {
  const { db } = t.app.context.database;
  for (const [index, name] of NAMES.entries()) {
    await db
      .updateTable('resources')
      .set({ downloads: name === favourite ? 1_000_000 : 100 * (index + 1), like_count: 0 })
      .where('id', '=', ids.get(name)!)
      .execute();
  }
  // Written behind the application's back: kept pages expire within 5 s.
  t.clock.advance(5001);
}

async function pageIds(search: string, limit: number, page = 1): Promise<string[]> {
  const response = await t.app.inject({
    method: 'GET',
    url: `/resources?search=${encodeURIComponent(search)}&sortBy=relevance&limit=${limit}&page=${page}`,
  });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { resources: Array<{ id: string }> }).resources.map((r) => r.id);
}

const withLimits = (limits: Partial<typeof SEARCH_LIMITS>, run: () => Promise<void>) =>
  withSearchLimits(t.clock, limits, run);

const SEARCHES = ['quest lan', 'lan', 'keep quest lan', 'quest keep la'];
const FAVOURITES = ['Lanterns Quest', 'Landing Quest', 'Lantern Quest', 'Keep Lanterns Quest'];
// scanRows 0: the top tier is gathered through the index, not found by testing rows of the popularity index
// (which would not read the written-out words at all).
const SETTINGS: Array<[string, Partial<typeof SEARCH_LIMITS>]> = [
  ['written out', { scanRows: 0 }],
  ['left a prefix', { scanRows: 0, nameCompletions: 0 }],
  ['more words than written out', { scanRows: 0, nameCompletions: 1 }],
];

describe('a typed prefix several name words start with', () => {
  it.each(SETTINGS)(
    '%s: pages of one give the order of one page scoring every match',
    async (_how, limits) => {
      for (const favourite of FAVOURITES) {
        await favour(favourite);
        for (const search of SEARCHES) {
          const whole = await pageIds(search, 99);
          expect(whole.length, search).toBeGreaterThan(3);
          await withLimits(limits, async () => {
            const paged: string[] = [];
            for (let page = 1; page <= whole.length; page++) paged.push(...(await pageIds(search, 1, page)));
            expect(paged, `${search}, ${favourite} most popular`).toEqual(whole);
          });
        }
      }
    },
  );

  it('ranks every name word the prefix completes to above the matches without one in the name', async () => {
    await favour('Quest Board');
    const top = await pageIds('quest lan', 6);
    const names = NAMES.filter((name) => name.includes('Quest') && name.includes('Lan'));
    expect(names.length).toBe(6);
    expect(new Set(top)).toEqual(new Set(names.map((name) => ids.get(name))));
    // The most popular of all has the prefix only in its description: it comes after them.
    expect((await pageIds('quest lan', 1, 7))[0]).toBe(ids.get('Quest Board'));
  });
});
