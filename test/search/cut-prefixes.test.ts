// A last word typed as a prefix longer than SQLite's FTS5 prefix indexes keep lists for (7+ letters, match.ts
// cutPrefixQuery), with other words or filters: SQLite counts the search from the prefix cut to six letters when
// that superset matches no more documents than the words taken whole, and reads relevance's name and keywords
// tiers from the cut, testing each match; the tier of any word in the name reads the whole search's listed
// documents. Totals, every page by date and by relevance, and facets must equal brute force on both dialects for
// words whose cut completes to other words (`lanter` → lantern, lanterns, lanterne, lanternfish) in every field,
// with and without filters, and after an edit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { createResource, moderate } from '../resources/helpers.js';
import { listCatalogue } from './catalogue.js';
import { statementsOf } from './statements.js';
import type { TracedStatement } from './statements.js';
import {
  byIdDesc,
  matching as matchingIn,
  parse,
  readIndexedDocuments,
  withDownloads,
  relevanceOrder,
} from './indexed-documents.js';
import type { IndexedDocument } from './indexed-documents.js';

let t: TestApp;
let owners: TestUser[];

let documents: IndexedDocument[];

const NAMES = ['Glow', 'Lantern', 'Lanterns', 'Reef', 'Quixotic', 'Amber', 'Lanternfish', 'Ember'];
const SHORT = ['glow', 'lanternfish', 'ember', 'lanterne', 'reef', 'amber', 'quixotic'];
const BODY = ['lanternfish', 'glow', 'quixotic', 'amber', 'lantern', 'lanterns', 'tide'];
const TYPES = ['MOD', 'PLUGIN', 'WORLD'] as const;

beforeAll(async () => {
  t = await buildTestApp();
  const moderator = await createUser(t.app, { role: 'MODERATOR' });
  owners = await Promise.all([
    createUser(t.app, { username: 'maker_lanternfish' }),
    createUser(t.app, { username: 'maker_reef' }),
  ]);
  const downloads = new Map<string, number>();
  for (let i = 0; i < 56; i++) {
    t.clock.advance(1000);
    const pick = (list: readonly string[], step: number) =>
      list[(i * step + Math.floor(i / 7)) % list.length]!;
    const resource = await createResource(t.app, owners[i % 2]!, {
      name: `${pick(NAMES, 3)} ${pick(NAMES, 5)}`,
      shortDescription: `${pick(SHORT, 2)} ${pick(SHORT, 3)} shore`,
      description: `Made of **${pick(BODY, 5)}** and ${pick(BODY, 3)}.`,
      type: TYPES[i % TYPES.length],
    });
    // Every ninth one stays PENDING: no search may show it.
    if (i % 9 !== 4) await moderate(t.app, moderator, resource.id, 'APPROVE');
    downloads.set(resource.id, (i * 37) % 11);
  }
  documents = await withDownloads(t, downloads);
}, 120_000);
afterAll(async () => t.close());

const matching = (search: string, type?: string) => matchingIn(documents, search, type);

/** Brute force: the matches newest first (then by id), or in relevance order. */
function expectedOrder(search: string, sortBy: 'date' | 'relevance', type?: string): string[] {
  if (sortBy === 'relevance') return relevanceOrder(documents, search, type);
  return matching(search, type)
    .map((d) => ({ id: d.resourceId, key: Date.parse(d.createdAt) }))
    .sort((a, b) => b.key - a.key || byIdDesc(a, b))
    .map((entry) => entry.id);
}

function query(search: string, type: string | undefined, extra: Record<string, string>) {
  const params = new URLSearchParams({ search, ...extra });
  if (type !== undefined) params.set('type', type);
  return params.toString();
}

/** Every page of `size`, concatenated; each page's total must be the brute-force count. */
async function allPages(search: string, type: string | undefined, sortBy: string, size: number) {
  const ids: string[] = [];
  const want = matching(search, type).length;
  for (let page = 1; page <= Math.max(1, Math.ceil(want / size)); page++) {
    const body = await listCatalogue(t, query(search, type, { sortBy, limit: `${size}`, page: `${page}` }));
    expect(body.meta.total, `${search} page ${page}`).toBe(want);
    expect(body.meta.totalExact).toBe(true);
    ids.push(...body.resources.map((r) => r.id));
  }
  return ids;
}

const SEARCHES: Array<[string, string | undefined]> = [
  ['glow lanternf', undefined],
  ['glow lantern', undefined],
  ['ember lanterns', undefined],
  ['reef quixotic', undefined],
  ['amber glow lanternfi', undefined],
  ['lantern glow amber', undefined],
  ['maker lanternfish', undefined],
  ['lanternfi', 'MOD'],
  ['shore lanterns', 'PLUGIN'],
];

/** Whether an FTS5 statement read `term` as a prefix (`"lanter"*`). */
const readPrefix = (statements: TracedStatement[], term: string) =>
  statements.some((s) => s.text.includes('_fts') && s.params.some((p) => `${p}`.includes(`"${term}"*`)));

describe('a last word longer than the prefix indexes keep', () => {
  it('is exercised: each cut (six letters) completes to more words than the word typed, in several fields', () => {
    for (const [search, type] of SEARCHES) expect(matching(search, type).length, search).toBeGreaterThan(0);
    // The cut's superset is larger than the matches: `lanter` finds documents that `lanternf` does not.
    expect(matching('glow lanter').length).toBeGreaterThan(matching('glow lanternf').length);
    expect(matching('ember lanter').length).toBeGreaterThan(matching('ember lanterns').length);
    const fieldsOf = (term: string) =>
      new Set(
        documents
          .flatMap((d) => Object.entries(d.fields).filter(([, w]) => w.includes(term)))
          .map(([f]) => f),
      );
    expect([...fieldsOf('lanternfish')].sort()).toEqual(['body', 'keywords', 'name', 'owner']);
  });

  it.each(SEARCHES)(
    '%s (type %s): totals and every page by date and by relevance equal brute force',
    async (search, type) => {
      for (const sortBy of ['date', 'relevance'] as const) {
        for (const size of [1, 4, 50]) {
          expect(await allPages(search, type, sortBy, size), `${search} ${sortBy} ${size}`).toEqual(
            expectedOrder(search, sortBy, type),
          );
        }
      }
    },
  );

  it.each(SEARCHES)('%s (type %s): facets equal brute-force counts', async (search, type) => {
    const body = await listCatalogue(t, query(search, type, { facets: 'type' }));
    const want: Record<string, number> = {};
    for (const d of matching(search, type)) want[d.type] = (want[d.type] ?? 0) + 1;
    expect(body.meta.facets?.type).toEqual(want);
    expect(body.meta.facetsExact).toBe(true);
  });

  it('SQLite reads the name and keywords tiers from the cut prefix, never the typed one', async () => {
    if (t.app.context.database.dialect !== 'sqlite') return;
    t.clock.advance(5001);
    const cut = SEARCHES.filter(([s, ty]) => {
      const last = parse(s).at(-1)!;
      return last.prefix && last.term.length > 6 && (parse(s).length > 1 || ty !== undefined);
    });
    expect(cut.length).toBeGreaterThanOrEqual(7);
    let tiersRead = 0;
    for (const [search, type] of cut) {
      const typed = parse(search).at(-1)!.term;
      const statements = await statementsOf(async () => {
        await listCatalogue(t, query(search, type, { sortBy: 'relevance' }));
      });
      const fields = statements.filter((s) => s.text.includes('"resource_fields_fts" match ?'));
      if (fields.length > 0) tiersRead++;
      expect(readPrefix(fields, typed), search).toBe(false);
      expect(
        fields.every((s) => readPrefix([s], typed.slice(0, 6))),
        search,
      ).toBe(true);
    }
    expect(tiersRead).toBeGreaterThanOrEqual(5);
  });

  it('SQLite counts from the cut prefix when the words taken whole match as many documents', async () => {
    if (t.app.context.database.dialect !== 'sqlite') return;
    t.clock.advance(5001);
    const main = (statements: TracedStatement[]) =>
      statements.filter((s) => s.text.includes('"resource_search_fts" match ?'));
    // `quixot` completes to `quixotic` alone: `reef quixotic` taken whole counts as many, which settles it.
    const settled = main(
      await statementsOf(async () => {
        await listCatalogue(t, query('reef quixotic', undefined, {}));
      }),
    );
    expect(readPrefix(settled, 'quixot')).toBe(true);
    expect(readPrefix(settled, 'quixotic')).toBe(false);
    // `lanter` also completes to `lantern`: `glow lanternf` is counted as typed.
    const typed = main(
      await statementsOf(async () => {
        await listCatalogue(t, query('glow lanternf', undefined, {}));
      }),
    );
    expect(readPrefix(typed, 'lanter')).toBe(true);
    expect(readPrefix(typed, 'lanternf')).toBe(true);
  });

  it('SQLite reads the tiers of any word and of two words in the name among the listed documents', async () => {
    if (t.app.context.database.dialect !== 'sqlite') return;
    t.clock.advance(5001);
    // Each tier: the listed documents' names tested, from the names' index (any word; two of them).
    const read = 'json_each(?)) f join resource_search s indexed by resource_search_doc_name_idx';
    // The test of two words ANDs pairs of names' words; the test of any word ORs them alone.
    const listed = (statements: TracedStatement[], pairs: boolean) =>
      statements.some((s) => s.text.includes(read) && s.text.split(read)[1]!.includes(' and ') === pairs);
    const anyListed = (statements: TracedStatement[]) => listed(statements, false);
    const twoListed = (statements: TracedStatement[]) => listed(statements, true);
    const served = { any: 0, two: 0 };
    for (const [search, type] of SEARCHES) {
      const want = expectedOrder(search, 'relevance', type);
      const statements = await statementsOf(async () => {
        const body = await listCatalogue(t, query(search, type, { sortBy: 'relevance', limit: '50' }));
        expect(body.resources.map((r) => r.id)).toEqual(want.slice(0, 50));
      });
      if (anyListed(statements)) served.any++;
      if (twoListed(statements)) served.two++;
    }
    expect(served.any).toBeGreaterThan(0);
    expect(served.two).toBeGreaterThan(0);
  });

  it('keeps the documents in step: an edit that removes the typed word removes the match', async () => {
    const { db } = t.app.context.database;
    // A match of `glow lanternf` whose owner's name does not hold the word: its own fields are rewritten without it.
    const reefMaker = owners[1]!;
    const { owner_id: _owner, ...target } = await db
      .selectFrom('resources')
      .select(['id', 'owner_id'])
      .where('owner_id', '=', reefMaker.id)
      .where(
        'id',
        'in',
        matching('glow lanternf').map((d) => d.resourceId),
      )
      .executeTakeFirstOrThrow();
    const before = matching('glow lanternf').length;
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/resources/${target.id}`,
      headers: reefMaker.headers,
      payload: { name: 'Glow Tide', shortDescription: 'glow shore', description: 'Made of tide.' },
    });
    expect(response.statusCode, response.body).toBe(200);
    const row = await db
      .selectFrom('resource_search')
      .select('name_text')
      .where('resource_id', '=', target.id)
      .executeTakeFirst();
    expect(row?.name_text).toBe('glow tide');
    documents = await readIndexedDocuments(t);
    expect(matching('glow lanternf').length).toBe(before - 1);
    t.clock.advance(5001);
    expect(await allPages('glow lanternf', undefined, 'relevance', 4)).toEqual(
      expectedOrder('glow lanternf', 'relevance'),
    );
    expect(await allPages('glow lanternf', undefined, 'date', 4)).toEqual(
      expectedOrder('glow lanternf', 'date'),
    );
  });
});
