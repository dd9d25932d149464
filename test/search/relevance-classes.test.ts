// Relevance pages served by score classes: the top tier (every word in the name) and the class after it (every
// word but one in the name, that one in the keywords: search/resource-match.ts allButOneTier), each in
// popularity order, read from the indexes of the name and keywords (migrations 0036 on SQLite, 0043 on
// PostgreSQL). Every page must equal the
// order computed here by brute force from the documents: text score (per word its best field: name 27, keywords
// 9, description 3, owner 1), then popularity, then id. Also: pages of a search whose count listed its matches
// (by date, downloads and relevance) under each of SQLite's plans for them (plan-costs.ts listedMatchesPlan),
// and migrations 0036's and 0043's indexes kept in step.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import { migrationFor } from '../helpers/migrations.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { sql } from 'kysely';
import { resourceFieldsFts } from '../../src/core/db/migrations/0036_resource_fields_fts.js';
import { resourceHeadWords } from '../../src/core/db/migrations/0043_resource_head_words.js';
import { listCatalogue } from './catalogue.js';
import { buildCorpus } from './resources-corpus.js';
import type { Corpus } from './resources-corpus.js';
import { withSearchLimits } from './search-limits.js';
import { statementsOf } from './statements.js';
import {
  byIdDesc,
  holds,
  matching as matchingIn,
  parse,
  readIndexedDocuments,
  withDownloads,
  relevanceOrder,
} from './indexed-documents.js';
import type { IndexedDocument } from './indexed-documents.js';
import { SEARCH_LIMITS } from '../../src/modules/search/resource-facets.js';

let t: TestApp;
let corpus: Corpus;
let owners: TestUser[];

let documents: IndexedDocument[];

beforeAll(async () => {
  t = await buildTestApp();
  const moderator = await createUser(t.app, { role: 'MODERATOR' });
  owners = await Promise.all([
    createUser(t.app, { username: 'maker_solstice' }),
    createUser(t.app, { username: 'maker_tundra' }),
  ]);
  corpus = await buildCorpus(t.app, t.clock, owners, moderator, 150);
  // Popularity with ties: the id must break them.
  documents = await withDownloads(
    t,
    new Map(corpus.entries.map((entry) => [entry.resource.id, (entry.index * 37) % 23])),
  );
}, 120_000);
afterAll(async () => t.close());

/** Brute force: the documents matching `search` (of `type`). */
const matching = (search: string, type?: string) => matchingIn(documents, search, type);

/** Brute force: the matches of `search` (of `type`) in a column's order, then by id, both descending. */
function expectedByColumn(search: string, sort: 'date' | 'downloads', type?: string): string[] {
  const key = (d: IndexedDocument) => (sort === 'date' ? Date.parse(d.createdAt) : d.downloads);
  return matching(search, type)
    .map((d) => ({ id: d.resourceId, key: key(d) }))
    .sort((a, b) => b.key - a.key || byIdDesc(a, b))
    .map((entry) => entry.id);
}

/** Brute force: the matches of `search` (of `type`), best first. */
const expectedOrder = (search: string, type?: string) => relevanceOrder(documents, search, type);

/** How many matches score 27 per word (top tier), and 27(n − 1) + 9 (the class after it). */
function classSizes(search: string, type?: string) {
  const n = parse(search).length;
  const terms = parse(search);
  const of = (score: number) =>
    documents.filter(
      (d) =>
        (type === undefined || d.type === type) &&
        terms.reduce(
          (sum, term) => sum + (holds(d.fields.name, term) ? 27 : holds(d.fields.keywords, term) ? 9 : 0),
          0,
        ) === score,
    ).length;
  return { top: of(27 * n), next: of(27 * (n - 1) + 9) };
}

const SEARCHES: Array<[string, string | undefined]> = [
  ['amber', undefined],
  ['frost ', undefined],
  ['ra', undefined],
  ['raven pi', undefined],
  ['pine raven ', undefined],
  ['marble m', undefined],
  ['granite marble nectar ', undefined],
  ['frost ivory rav', undefined],
  ['raven pine amber', undefined],
  ['amber', 'PLUGIN'],
  ['onyx quartz', 'ASSET_PACK'],
  ['granite marble nectar ', 'MOD'],
];

async function pages(
  search: string,
  type: string | undefined,
  size: number,
  count: number,
  sortBy = 'relevance',
) {
  const ids: string[] = [];
  for (let page = 1; page <= count; page++) {
    const params = new URLSearchParams({ search, sortBy, limit: `${size}`, page: `${page}` });
    if (type !== undefined) params.set('type', type);
    ids.push(...(await listCatalogue(t, params.toString())).resources.map((r) => r.id));
  }
  return ids;
}

/** The first page (of `size`) that ends past the top tier, within the class after it, if there is one. */
function classPage(search: string, type: string | undefined, size: number): number | undefined {
  const { top, next } = classSizes(search, type);
  const page = Math.floor(top / size) + 1;
  return page * size <= top + next ? page : undefined;
}

const SIZES = [1, 3, 8];

/** A statement that read the class after the top tier from its indexes (search/resource-match.ts). */
const classRead =
  (dialect: string) =>
  ({ text, params }: { text: string; params: unknown[] }): boolean =>
    dialect === 'postgres'
      ? text.includes('v.head_words @@')
      : text.includes('"resource_fields_fts" match ?') &&
        params.some((p) => `${p}`.includes(' NOT name_text : ('));

describe('relevance pages by score class', () => {
  it('is exercised: searches of 1, 2 and 3 words with pages that the class after the top tier completes', () => {
    const completed = SEARCHES.filter(([search, type]) =>
      SIZES.some((size) => classPage(search, type, size) !== undefined),
    );
    expect(completed.length).toBeGreaterThanOrEqual(6);
    for (const words of [1, 2, 3]) {
      expect(completed.some(([search]) => parse(search).length === words)).toBe(true);
    }
    // Pages that hold both: the top tier's last matches, then the class's first.
    expect(
      SEARCHES.some(([search, type]) => classSizes(search, type).top % 8 !== 0 && classPage(search, type, 8)),
    ).toBe(true);
  });

  it.each(SEARCHES.flatMap(([search, type]) => SIZES.map((size) => [search, type, size] as const)))(
    '%s (type %s), pages of %i: the brute-force order',
    async (search, type, size) => {
      const want = expectedOrder(search, type);
      expect(want.length).toBeGreaterThan(0);
      const count = Math.ceil(want.length / size);
      expect(await pages(search, type, size, count)).toEqual(want.slice(0, count * size));
    },
  );

  // Each way of reading a class by popularity: the popularity index's rows tested against the text (scan, above:
  // a small corpus's matches are a large share of it), the matches gathered and sorted, or their list probed
  // along the popularity index (walk).
  const PLANS: Array<[string, Partial<typeof SEARCH_LIMITS>]> = [
    ['gather', { scanRows: 0 }],
    ['walk', { scanRows: 0, walkFromMatches: 0, walkRatio: 0 }],
  ];
  it.each(PLANS)('classes read by %s: pages of 1 and 3 give the brute-force order', (_plan, limits) =>
    withSearchLimits(t.clock, limits, async () => {
      for (const [search, type] of SEARCHES) {
        const want = expectedOrder(search, type);
        for (const size of [1, 3]) {
          const count = Math.ceil(want.length / size);
          expect(await pages(search, type, size, count), `${search} ${size}`).toEqual(
            want.slice(0, count * size),
          );
        }
      }
    }),
  );

  it('reads those pages from the indexes of the name and keywords, never scoring matches', async () => {
    const { dialect } = t.app.context.database;
    const served = SEARCHES.flatMap(([search, type]) =>
      SIZES.map((size) => [search, type, size, classPage(search, type, size)] as const),
    ).filter(([, , , page]) => page !== undefined);
    expect(served.length).toBeGreaterThanOrEqual(8);
    t.clock.advance(5001); // Pages asked for above: not from the answer cache.
    for (const [search, type, size, page] of served) {
      const statements = await statementsOf(async () => {
        const ids = await pages(search, type, size, page!);
        expect(ids.slice(-size)).toEqual(expectedOrder(search, type).slice((page! - 1) * size, page! * size));
      });
      const texts = statements.map((statement) => statement.text);
      // The class, as matchingDocuments reads it: match.ts ftsAllButOneInName, or the head words (0043).
      expect(statements.some(classRead(dialect))).toBe(true);
      // Scored pages join the documents (`s`) to order by their text, and the middle tier of three words tests
      // the names it reads against them: the classes' pages order by popularity alone.
      const scoring = /"resource_search" as "s"|join resource_search s/;
      expect(texts.filter((text) => scoring.test(text))).toEqual([]);
    }
  });

  it('scores a three-word page from the listed matches of the two-words-in-name tier', async () => {
    // Names here have two words, so three words never fill the top tier: page 1 of 1 is the best match of the
    // tier of two of them in the name, when it has one, whose count lists its matches (relevance-pages.ts
    // scoredMatch) for the page to score, a search alone's on PostgreSQL. (The class after the top tier serves
    // it when it has one.)
    const { dialect } = t.app.context.database;
    const listed = dialect === 'postgres' ? 'json_array_elements_text(' : 'json_each(';
    const scoring = /"resource_search" as "s"|join resource_search s/;
    const twoInName = (search: string, type: string | undefined) =>
      matching(search, type).some(
        (d) => parse(search).filter((term) => holds(d.fields.name, term)).length >= 2,
      );
    const threeWords = SEARCHES.filter(
      ([search, type]) =>
        parse(search).length === 3 && twoInName(search, type) && (dialect === 'sqlite' || type === undefined),
    );
    expect(threeWords.length).toBeGreaterThanOrEqual(1);
    t.clock.advance(5001);
    for (const [search, type] of threeWords) {
      const statements = await statementsOf(async () => {
        expect(await pages(search, type, 1, 1)).toEqual(expectedOrder(search, type).slice(0, 1));
      });
      const scored = statements.filter(({ text }) => scoring.test(text));
      // Scored, unless the class after the top tier served the page from the indexes.
      const served = classPage(search, type, 1) !== undefined;
      expect(served ? statements.some(classRead(dialect)) : scored.length > 0, search).toBe(true);
      for (const { text } of scored) expect(text, search).toContain(listed);
    }
  });
});

describe('migrations 0036 (the fields index, SQLite) and 0043 (the head words, PostgreSQL)', () => {
  const integrityCheck = async () => {
    const { db, dialect } = t.app.context.database;
    if (dialect !== 'sqlite') return;
    await sql`insert into resource_fields_fts(resource_fields_fts, rank) values ('integrity-check', 1)`.execute(
      db,
    );
  };
  const expectClassPages = async (search: string) => {
    t.clock.advance(5001);
    const want = expectedOrder(search);
    expect(want.length).toBeGreaterThan(0);
    for (const size of [1, 3]) {
      const count = Math.ceil(want.length / size);
      expect(await pages(search, undefined, size, count), `${search} ${size}`).toEqual(
        want.slice(0, count * size),
      );
    }
  };

  it('indexes the documents written before it, and its triggers keep the index in step with every write', async () => {
    const { db } = t.app.context.database;
    // (Each is a no-op on the other dialect.)
    for (const migration of [migrationFor(t, resourceFieldsFts), migrationFor(t, resourceHeadWords)]) {
      await migration.down!(db as never);
      await migration.up(db as never);
    }
    await integrityCheck();
    await expectClassPages('ra');
    await expectClassPages('raven pi');

    // A new word in a name, then in a short description and the name: the fields the classes read.
    const entries = corpus.entries.filter((entry) => entry.approved);
    const owned = (index: number) => owners[index % owners.length]!;
    const edit = async (entry: (typeof entries)[number], payload: Record<string, unknown>) => {
      const response = await t.app.inject({
        method: 'PATCH',
        url: `/resources/${entry.resource.id}`,
        headers: owned(entry.index).headers,
        payload,
      });
      expect(response.statusCode, response.body).toBe(200);
    };
    for (const [i, entry] of entries.slice(0, 6).entries()) {
      await edit(entry, i % 2 === 0 ? { name: `Quokkite ${i}` } : { shortDescription: `quokkite ${i}` });
    }
    // A description alone: not a column the class reads.
    await edit(entries[6]!, { description: 'quokkite in the body' });
    documents = await readIndexedDocuments(t);
    await integrityCheck();
    await expectClassPages('quokkite');
    await expectClassPages('quokkite ');
    const { top, next } = classSizes('quokkite ');
    expect([top, next]).toEqual([3, 3]);
  });
});

// SQLite, a search counted exactly: its documents are listed, and a page ordered by a column (or relevance's
// classes, by popularity) walks the sort index testing rows against their resource ids read once ('hashed'),
// walks it probing each row's document, or gathers them (plan-costs.ts listedMatchesPlan). PostgreSQL
// answers the same pages its own way.
describe('pages of a search whose count listed its matches, under each plan', () => {
  const costs = (sqlite: Partial<typeof SEARCH_LIMITS.hashedWalk.sqlite>) => ({
    hashedWalk: { ...SEARCH_LIMITS.hashedWalk, sqlite: { ...SEARCH_LIMITS.hashedWalk.sqlite, ...sqlite } },
  });
  // Each plan with the mark its page statements carry (resources/resource-views.repo.ts, search/resource-match.ts):
  // a hashed walk of listed matches is a bounded one (`w`).
  const FORCED: Array<[string, string, Partial<typeof SEARCH_LIMITS>]> = [
    ['hashed', '+w.id in (', { documentIdRead: 0, ...costs({ probeRow: 1e9, gatherMatch: 1e9 }) }],
    ['walk', '+ws.doc_id in (', { documentIdRead: 1e9, ...costs({ gatherMatch: 1e9 }) }],
    ['gather', '+resources.status = ', { documentIdRead: 1e9, ...costs({ probeRow: 1e9 }) }],
  ];
  it.each(FORCED)(
    '%s: every page by date, downloads and relevance is the brute-force order',
    (_plan, mark, limits) =>
      withSearchLimits(t.clock, limits, async () => {
        const statements = await statementsOf(async () => {
          for (const [search, type] of SEARCHES) {
            for (const sort of ['date', 'downloads'] as const) {
              const want = expectedByColumn(search, sort, type);
              const count = Math.ceil(want.length / 3);
              expect(await pages(search, type, 3, count, sort), `${search} ${sort}`).toEqual(
                want.slice(0, count * 3),
              );
            }
            const want = expectedOrder(search, type);
            const count = Math.ceil(want.length / 3);
            expect(await pages(search, type, 3, count), `${search} relevance`).toEqual(
              want.slice(0, count * 3),
            );
          }
        });
        if (t.app.context.database.dialect !== 'sqlite') return;
        const pageStatements = statements.filter(({ text }) =>
          text.startsWith('select "resources"."id", "resources"."name"'),
        );
        expect(pageStatements.filter(({ text }) => text.includes(mark)).length).toBeGreaterThan(
          SEARCHES.length,
        );
      }),
  );
});
