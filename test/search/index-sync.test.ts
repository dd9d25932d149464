// The resource search index kept in step (issue 17): every write that changes what a resource's document holds,
// or whether it has one, rewrites it in the same transaction: creation, edits (text, tags, categories),
// resubmission, every moderation move, deletion (a cascaded delete on SQLite must reach the FTS5 index too),
// catalog renames and deletions. After every test the whole index is compared with what a rebuild would write,
// and on SQLite FTS5 checks its index against its content table. Rebuilds restore a wiped or stale index.
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ftsMatch, PREFIX_TERM_LENGTHS } from '../../src/modules/search/match.js';
import { tsMatch } from '../../src/modules/search/resource-match.js';
import { ftsFacetTerms } from '../../src/core/db/migrations/0031_fts_facet_terms.js';
import { ftsLongerPrefixes } from '../../src/core/db/migrations/0032_fts_longer_prefixes.js';
import { documentPrefixTerms } from '../../src/core/db/migrations/0033_document_prefix_terms.js';
import { resourceFacetCodes } from '../../src/core/db/migrations/0035_resource_facet_codes.js';
import { documentFacetCodes } from '../../src/core/db/migrations/0037_document_facet_codes.js';
import { resourceFieldsFts } from '../../src/core/db/migrations/0036_resource_fields_fts.js';
import { resourceHeadWords } from '../../src/core/db/migrations/0043_resource_head_words.js';
import {
  resourceSearchVectors,
  VECTOR_PARTITIONS,
} from '../../src/core/db/migrations/0034_resource_search_vectors.js';
import { rebuildResourceSearch } from '../../src/modules/search/rebuild.js';
import { facetTermOf, ftsFacetTermOf } from '../../src/modules/search/resource-facet-keys.js';
import type { FacetKey } from '../../src/modules/search/resource-facet-keys.js';
import { resourceDocument, selectResourceSources } from '../../src/modules/search/resource-documents.js';
import { indexText, parseSearch } from '../../src/modules/search/text.js';
import { buildTestApp } from '../helpers/app.js';
import { migrationFor } from '../helpers/migrations.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import { createResource, moderate, readCatalogs } from '../resources/helpers.js';
import { listCatalogue } from './catalogue.js';
import type { Catalogs, ResourceBody } from '../resources/helpers.js';

/** A document's facet keys, as stored (JSON triples). */
const keysOf = (json: string): FacetKey[] => JSON.parse(json) as FacetKey[];

let t: TestApp;
let owner: TestUser;
let moderator: TestUser;
let admin: TestUser;
let catalogs: Catalogs;

beforeAll(async () => {
  t = await buildTestApp();
  [owner, moderator, admin] = await Promise.all([
    createUser(t.app),
    createUser(t.app, { role: 'MODERATOR' }),
    createUser(t.app, { role: 'ADMIN' }),
  ]);
  catalogs = await readCatalogs(t.app);
});
afterAll(async () => t?.close());
afterEach(async () => expectIndexInStep());

const db = () => t.app.context.database.db;
const dialect = () => t.app.context.database.dialect;

/** A word no other test uses, so each test's matches are its own. */
let wordSequence = 0;
const word = (stem: string) => `${stem}${(wordSequence += 1)}q`;

/**
 * The resources a full-text query matches, read straight from the index the way each dialect searches; on
 * PostgreSQL from `documents`' document column (resource_search's before migration 0034).
 */
async function matches(query: string, documents = 'resource_search_vectors'): Promise<string[]> {
  const parsed = parseSearch(query);
  if (parsed === null) throw new Error(`no words in ${query}`);
  const rows =
    dialect() === 'sqlite'
      ? await sql<{ resource_id: string }>`
          select s.resource_id from resource_search_fts f join resource_search s on s.doc_id = f.rowid
          where resource_search_fts match ${ftsMatch(parsed)}`.execute(db())
      : await sql<{ resource_id: string }>`
          select resource_id from ${sql.table(documents)} where document @@ ${tsMatch({ query: parsed })}`.execute(
          db(),
        );
  return rows.rows.map((row) => row.resource_id).sort();
}

/** The ids GET /resources lists for a query string, with its total checked against them. */
async function listed(query: string): Promise<string[]> {
  const body = await listCatalogue(t, `${query}&limit=50`);
  expect(body.meta.total).toBe(body.resources.length);
  return body.resources.map((resource) => resource.id).sort();
}

const documentOf = (id: string) =>
  db()
    .selectFrom('resource_search')
    .select(['name_text', 'keywords_text', 'body_text', 'owner_text'])
    .where('resource_id', '=', id)
    .executeTakeFirst();

/**
 * The index holds exactly one document per APPROVED resource, each equal to what it is made from now; on SQLite
 * the FTS5 index also agrees with its content table (rank 1: compare against the external content).
 */
async function expectIndexInStep(): Promise<void> {
  const [sources, stored] = await Promise.all([
    selectResourceSources(db()).where('resources.status', '=', 'APPROVED').execute(),
    db().selectFrom('resource_search').selectAll().execute(),
  ]);
  const expected = sources.map(resourceDocument).sort((a, b) => a.resource_id.localeCompare(b.resource_id));
  const actual = stored
    .map(({ doc_id: _doc, ...rest }) => {
      // The index's own columns: PostgreSQL's tsvector, SQLite's facet terms (both checked below).
      const {
        document: _vector,
        facet_terms: _terms,
        ...columns
      } = rest as typeof rest & { document?: unknown; facet_terms?: unknown };
      return columns;
    })
    .sort((a, b) => a.resource_id.localeCompare(b.resource_id));
  expect(actual).toEqual(expected);
  // The facet counts the index's triggers keep (rebuilds empty and refill them) agree with the documents.
  const counted = new Map<string, number>();
  for (const document of expected) {
    for (const key of JSON.parse(document.facet_keys) as string[][]) {
      counted.set(key.join('|'), (counted.get(key.join('|')) ?? 0) + 1);
    }
  }
  const counts = await db().selectFrom('resource_facet_counts').selectAll().execute();
  const kept = new Map(
    counts
      .filter((row) => Number(row.resource_count) !== 0)
      .map((row) => [[row.facet, row.scope, row.value].join('|'), Number(row.resource_count)]),
  );
  expect(kept).toEqual(counted);
  // The facet terms of each document's index entry (migrations 0030, 0031) are its facet keys, as the filters'
  // queries spell them (FTS5 folds a token's case, as it folds the query's).
  const spelt = dialect() === 'postgres' ? facetTermOf : (key: FacetKey) => ftsFacetTermOf(key).toLowerCase();
  const wanted = new Map(
    expected.map((document) => [document.resource_id, keysOf(document.facet_keys).map(spelt).sort()]),
  );
  expect(await indexedFacetTerms()).toEqual(wanted);
  if (dialect() === 'postgres') {
    expect(await indexedPrefixTerms()).toEqual(expectedPrefixTerms(expected));
    expect(await vectorsOutOfStep()).toEqual([]);
  }
  if (dialect() === 'sqlite') {
    expect(await codedFacetValues()).toEqual(
      new Map(
        expected.map((document) => [
          document.resource_id,
          keysOf(document.facet_keys)
            .filter(([, scope]) => scope === '')
            .map(([facet, , value]) => `${facet}|${value}`)
            .sort(),
        ]),
      ),
    );
    // Both FTS5 indexes hold exactly their content (resource_search): the main one and the fields' (0036).
    for (const fts of ['resource_search_fts', 'resource_fields_fts']) {
      await sql`insert into ${sql.table(fts)}(${sql.ref(fts)}, rank) values ('integrity-check', 1)`.execute(
        db(),
      );
    }
  }
}

/**
 * SQLite (migration 0037): per document's resource, the facet values its codes name in the dictionary, sorted; a
 * codes row whose document is gone shows under `orphan`.
 */
async function codedFacetValues(): Promise<Map<string, string[]>> {
  const { rows } = await sql<{ resource_id: string | null; doc_id: number; named: string }>`
    select s.resource_id, c.doc_id, (
      select json_group_array(v.facet || '|' || v.value) from json_each(c.codes) e
      join resource_facet_value_codes v on v.code = e.value) as named
    from resource_search_facet_codes c left join resource_search s on s.doc_id = c.doc_id`.execute(db());
  return new Map(
    rows.map((row) => [
      row.resource_id ?? `orphan ${row.doc_id}`,
      (JSON.parse(row.named) as string[]).sort(),
    ]),
  );
}

/**
 * PostgreSQL (migration 0033): the starts of 3 to 6 characters of each document's words of ASCII letters and
 * digits, `~epic`, as the documents should hold them, then as they do.
 */
function expectedPrefixTerms(documents: ReturnType<typeof resourceDocument>[]): Map<string, string[]> {
  const { min, max } = PREFIX_TERM_LENGTHS;
  const terms = new Map<string, string[]>();
  for (const document of documents) {
    const text = [document.name_text, document.keywords_text, document.body_text, document.owner_text].join(
      ' ',
    );
    const starts = new Set<string>();
    for (const word of text.split(' ').filter((part) => /^[a-z0-9]+$/.test(part))) {
      for (let length = min; length <= Math.min(max, word.length); length += 1) {
        starts.add(`~${word.slice(0, length)}`);
      }
    }
    if (starts.size > 0) terms.set(document.resource_id, [...starts].sort());
  }
  return terms;
}

/**
 * PostgreSQL (migrations 0034, 0035): the resources whose vectors are missing, left over, or not what their
 * document's text makes (the name's words, the whole document, the facet codes), as the triggers should keep them.
 */
async function vectorsOutOfStep(): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    select coalesce(s.resource_id, v.resource_id) as id
    from resource_search s full join resource_search_vectors v on v.resource_id = s.resource_id
    where s.resource_id is null or v.resource_id is null
      or v.name_words <> resource_name_words(s.name_text)
      or v.head_words <> resource_head_words(s.name_text, s.keywords_text)
      or v.document <> resource_document(s.name_text, s.keywords_text, s.body_text, s.owner_text, s.facet_keys)
      or v.facet_codes <> resource_facet_codes(s.facet_keys)`.execute(db());
  return rows.map((row) => row.id);
}

type TermRow = { resource_id: string; term: string };

/** PostgreSQL: the lexemes of every document that start with `mark` (`~` word starts, `#` facet terms). */
async function markedLexemes(mark: '~' | '#'): Promise<TermRow[]> {
  const { rows } = await sql<TermRow>`
    select resource_id, lexeme as term from resource_search_vectors, unnest(document)
    where starts_with(lexeme, ${mark})`.execute(db());
  return rows;
}

/** Terms per resource, each resource's sorted. */
function termsByResource(rows: TermRow[]): Map<string, string[]> {
  const terms = new Map<string, string[]>();
  for (const row of rows) terms.set(row.resource_id, [...(terms.get(row.resource_id) ?? []), row.term]);
  for (const list of terms.values()) list.sort();
  return terms;
}

const indexedPrefixTerms = async () => termsByResource(await markedLexemes('~'));

/** Each document's facet terms as its full-text index holds them. */
async function indexedFacetTerms(): Promise<Map<string, string[]>> {
  if (dialect() === 'postgres') return termsByResource(await markedLexemes('#'));
  await sql`create virtual table if not exists temp.indexed_terms
    using fts5vocab(main, resource_search_fts, instance)`.execute(db());
  const { rows } = await sql<TermRow>`
    select s.resource_id, v.term from temp.indexed_terms v join resource_search s on s.doc_id = v.doc
    where v.col = 'facet_terms'`.execute(db());
  return termsByResource(rows);
}

async function patch(id: string, payload: Record<string, unknown>, as: TestUser = owner) {
  return t.app.inject({ method: 'PATCH', url: `/resources/${id}`, headers: as.headers, payload });
}

async function approvedResource(body: Record<string, unknown> = {}): Promise<ResourceBody> {
  const created = await createResource(t.app, owner, body);
  return moderate(t.app, moderator, created.id, 'APPROVE');
}

const tagId = (slug: string) => catalogs.tags.find((tag) => tag.slug === slug)!.id;
const modCategory = () => catalogs.categories.find((category) => category.resourceType === 'MOD')!;

describe('creation and approval', () => {
  it('a new (PENDING) resource has no document; approval writes one with every weighted field', async () => {
    const [name, short, body, tagged] = [word('glimmer'), word('brook'), word('lantern'), catalogs.tags[0]!];
    const created = await createResource(t.app, owner, {
      name: `Épée ${name}`,
      shortDescription: `About ${short}`,
      description: `# Title\n\nSome ${body} text with a [link](https://example.com/hidden${body}).`,
      tagIds: [tagged.id],
      categoryIds: [modCategory().id],
    });
    expect(created.status).toBe('PENDING');
    expect(await documentOf(created.id)).toBeUndefined();
    expect(await matches(name)).toEqual([]);

    await moderate(t.app, moderator, created.id, 'APPROVE');
    const document = await documentOf(created.id);
    expect(document).toMatchObject({ name_text: `epee ${name}`, owner_text: indexText(owner.username) });
    expect(document!.keywords_text).toContain(short);
    expect(document!.keywords_text).toContain(tagged.name.toLowerCase());
    expect(document!.keywords_text).toContain(modCategory().name.toLowerCase());
    expect(document!.body_text).toContain(body);
    expect(document!.body_text).not.toContain('example');
    for (const query of [name, short, body, `EPEE ${name.slice(0, 4)}`, owner.username]) {
      expect(await matches(query), query).toContain(created.id);
    }
  });
});

describe('edits', () => {
  it('PATCH of name, short description and description rewrites the document', async () => {
    const [before, after, short, body] = [word('amber'), word('cobalt'), word('meadow'), word('thistle')];
    const resource = await approvedResource({ name: `Pack ${before}` });
    expect(await matches(before)).toEqual([resource.id]);

    const response = await patch(resource.id, {
      name: `Pack ${after}`,
      shortDescription: `Now ${short}`,
      description: `Long ${body}`,
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(await matches(before)).toEqual([]);
    for (const query of [after, short, body]) expect(await matches(query), query).toEqual([resource.id]);
  });

  it('PATCH of tags and categories rewrites the keywords', async () => {
    const name = word('harbor');
    const [first, second] = [catalogs.tags[1]!, catalogs.tags[2]!];
    const resource = await approvedResource({ name: `Docks ${name}`, tagIds: [first.id] });
    expect(await matches(`${name} ${first.name}`)).toEqual([resource.id]);

    const response = await patch(resource.id, { tagIds: [second.id], categoryIds: [modCategory().id] });
    expect(response.statusCode, response.body).toBe(200);
    expect(await matches(`${name} ${first.name}`)).toEqual([]);
    expect(await matches(`${name} ${second.name}`)).toEqual([resource.id]);
    expect(await matches(`${name} ${modCategory().name}`)).toEqual([resource.id]);
    // Searched with the filters (the documents' facet terms answer them): the new values only.
    expect(await listed(`search=${name}&tags=${first.slug}`)).toEqual([]);
    expect(await listed(`search=${name}&tags=${first.slug}&type=MOD`)).toEqual([]);
    expect(await listed(`search=${name}&tags=${second.slug}&type=MOD`)).toEqual([resource.id]);
    expect(await listed(`search=${name}&tags=${second.slug}&type=WORLD`)).toEqual([]);
    expect(await listed(`search=${name}&categories=${modCategory().slug}`)).toEqual([resource.id]);
  });

  it('a PATCH that fails (an unknown tag id: 400) leaves the document as it was', async () => {
    const name = word('quarry');
    const resource = await approvedResource({
      name: `Stone ${name}`,
      tagIds: [tagId(catalogs.tags[0]!.slug)],
    });
    const before = await documentOf(resource.id);
    expectError(await patch(resource.id, { name: `Other ${word('x')}`, tagIds: ['no-such-tag'] }), 400);
    expect(await documentOf(resource.id)).toEqual(before);
    expect(await matches(name)).toEqual([resource.id]);
  });

  it('a REJECTED resource loses its document; resubmitting by an edit keeps none until approved again', async () => {
    const [name, renamed] = [word('falcon'), word('osprey')];
    const resource = await approvedResource({ name: `Bird ${name}` });
    await moderate(t.app, moderator, resource.id, 'REJECT', 'needs work');
    expect(await documentOf(resource.id)).toBeUndefined();
    expect(await matches(name)).toEqual([]);

    const response = await patch(resource.id, { name: `Bird ${renamed}` });
    expect(response.statusCode, response.body).toBe(200);
    expect((response.json() as ResourceBody).status).toBe('PENDING');
    expect(await documentOf(resource.id)).toBeUndefined();

    await moderate(t.app, moderator, resource.id, 'APPROVE');
    expect(await matches(renamed)).toEqual([resource.id]);
    expect(await matches(name)).toEqual([]);
  });
});

describe('moderation', () => {
  it('SUSPEND removes the document and UNSUSPEND brings it back; a PENDING suspension writes none', async () => {
    const name = word('ember');
    const resource = await approvedResource({ name: `Fire ${name}` });
    await moderate(t.app, moderator, resource.id, 'SUSPEND', 'checking');
    expect(await matches(name)).toEqual([]);
    await moderate(t.app, moderator, resource.id, 'UNSUSPEND');
    expect(await matches(name)).toEqual([resource.id]);

    const pendingName = word('cinder');
    const pending = await createResource(t.app, owner, { name: `Ash ${pendingName}` });
    await moderate(t.app, moderator, pending.id, 'SUSPEND', 'spam');
    expect(await documentOf(pending.id)).toBeUndefined();
    await moderate(t.app, moderator, pending.id, 'UNSUSPEND');
    expect(await matches(pendingName)).toEqual([pending.id]);
  });

  it('a refused transition (409) leaves the index as it was', async () => {
    const name = word('glacier');
    const resource = await approvedResource({ name: `Ice ${name}` });
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/resources/moderation/${resource.id}/moderate`,
      headers: moderator.headers,
      payload: { action: 'UNSUSPEND' },
    });
    expectError(response, 409);
    expect(await matches(name)).toEqual([resource.id]);
  });
});

describe('deletion', () => {
  it('deleting a resource removes its document (a cascaded delete reaches the FTS index)', async () => {
    const name = word('meteor');
    const resource = await approvedResource({ name: `Sky ${name}` });
    expect(await matches(name)).toEqual([resource.id]);
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/resources/${resource.id}`,
      headers: owner.headers,
    });
    expect(response.statusCode, response.body).toBeLessThan(300);
    expect(await documentOf(resource.id)).toBeUndefined();
    expect(await matches(name)).toEqual([]);
  });
});

describe('catalog changes', () => {
  async function createTag(name: string, slug: string) {
    const response = await t.app.inject({
      method: 'POST',
      url: '/resource-tags',
      headers: admin.headers,
      payload: { name, slug },
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json() as { id: string; name: string; slug: string };
  }

  it('renaming a tag rewrites the documents of the approved resources that carry it; deleting it removes it', async () => {
    const [old, renamed] = [word('sprocket'), word('flywheel')];
    const tag = await createTag(`Tag ${old}`, `tag-${old}`);
    const approved = await approvedResource({ tagIds: [tag.id] });
    const pending = await createResource(t.app, owner, { tagIds: [tag.id] });
    expect(await matches(old)).toEqual([approved.id]);

    const rename = await t.app.inject({
      method: 'PATCH',
      url: `/resource-tags/${tag.id}`,
      headers: admin.headers,
      payload: { name: `Tag ${renamed}` },
    });
    expect(rename.statusCode, rename.body).toBe(200);
    expect(await matches(old)).toEqual([]);
    expect(await matches(renamed)).toEqual([approved.id]);
    expect(await documentOf(pending.id)).toBeUndefined();

    const removal = await t.app.inject({
      method: 'DELETE',
      url: `/resource-tags/${tag.id}`,
      headers: admin.headers,
    });
    expect(removal.statusCode, removal.body).toBeLessThan(300);
    expect(await matches(renamed)).toEqual([]);
    expect(await documentOf(approved.id)).toBeDefined();
  });

  it('a refused tag rename (slug taken: 409) leaves the documents as they were', async () => {
    const name = word('gasket');
    const tag = await createTag(`Tag ${name}`, `tag-${name}`);
    const other = await createTag(`Tag ${word('valve')}`, `tag-${word('valve')}`);
    const resource = await approvedResource({ tagIds: [tag.id] });
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/resource-tags/${tag.id}`,
      headers: admin.headers,
      payload: { name: `Tag ${word('pipe')}`, slug: other.slug },
    });
    expectError(response, 409);
    expect(await matches(name)).toEqual([resource.id]);
  });

  it('renaming and deleting a category rewrites the documents in it', async () => {
    const [old, renamed] = [word('orchard'), word('vineyard')];
    const created = await t.app.inject({
      method: 'POST',
      url: '/resources/categories',
      headers: admin.headers,
      payload: { name: `Cat ${old}`, slug: `cat-${old}`, resourceType: 'MOD' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const category = created.json() as { id: string };
    const resource = await approvedResource({ categoryIds: [category.id] });
    expect(await matches(old)).toEqual([resource.id]);

    const rename = await t.app.inject({
      method: 'PATCH',
      url: `/resources/categories/${category.id}`,
      headers: admin.headers,
      payload: { name: `Cat ${renamed}` },
    });
    expect(rename.statusCode, rename.body).toBe(200);
    expect(await matches(old)).toEqual([]);
    expect(await matches(renamed)).toEqual([resource.id]);

    const removal = await t.app.inject({
      method: 'DELETE',
      url: `/resources/categories/${category.id}`,
      headers: admin.headers,
    });
    expect(removal.statusCode, removal.body).toBeLessThan(300);
    expect(await matches(renamed)).toEqual([]);
  });

  it('renaming and deleting a game version keeps the documents in step', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/game-versions',
      headers: admin.headers,
      payload: { name: `7.${wordSequence}` },
    });
    expect(created.statusCode, created.body).toBe(201);
    const version = created.json() as { id: string };
    const resource = await approvedResource({ gameVersionIds: [version.id] });
    const rename = await t.app.inject({
      method: 'PATCH',
      url: `/game-versions/${version.id}`,
      headers: admin.headers,
      payload: { name: `8.${wordSequence}` },
    });
    expect(rename.statusCode, rename.body).toBe(200);
    const removal = await t.app.inject({
      method: 'DELETE',
      url: `/game-versions/${version.id}`,
      headers: admin.headers,
    });
    expect(removal.statusCode, removal.body).toBeLessThan(300);
    expect(await documentOf(resource.id)).toBeDefined();
  });
});

describe('rebuild', () => {
  it.each([false, true])(
    'restores a wiped or stale index, approved resources only (exclusive: %s)',
    async (exclusive) => {
      const [name, stale, hidden] = [word('lighthouse'), word('shipwreck'), word('cellar')];
      const resource = await approvedResource({ name: `Coast ${name}` });
      const pending = await createResource(t.app, owner, { name: `Cave ${hidden}` });
      const before = await matches(name);
      expect(before).toEqual([resource.id]);

      // A change behind the application's back leaves the index stale; a wipe leaves it empty.
      await db()
        .updateTable('resources')
        .set({ name: `Coast ${stale}` })
        .where('id', '=', resource.id)
        .execute();
      expect(await matches(stale)).toEqual([]);
      await db().deleteFrom('resource_search').execute();
      expect(await matches(name)).toEqual([]);

      const progress: Array<{ done: number; total: number }> = [];
      const result = await rebuildResourceSearch(db(), dialect(), (step) => progress.push(step), {
        exclusive,
      });
      const approvedCount = await db()
        .selectFrom('resources')
        .where('status', '=', 'APPROVED')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(result.documents).toBe(Number(approvedCount.n));
      expect(progress.at(-1)).toMatchObject({ done: result.documents, total: result.documents });
      expect(await matches(stale)).toEqual([resource.id]);
      expect(await matches(name)).toEqual([]);
      expect(await matches(hidden)).toEqual([]);
      expect(await documentOf(pending.id)).toBeUndefined();

      // Writes after a rebuild still reach the index (the rebuild leaves the triggers and indexes in place).
      const response = await patch(resource.id, { name: `Coast ${name}` });
      expect(response.statusCode, response.body).toBe(200);
      expect(await matches(name)).toEqual([resource.id]);
    },
  );
});

describe('documents written before migration 0031', () => {
  it('get their facet terms when it runs (SQLite: the FTS5 index is rebuilt), and answer searches with filters', async () => {
    const name = word('lagoon');
    const tag = catalogs.tags[3]!;
    const resource = await approvedResource({ name: `Reef ${name}`, tagIds: [tag.id] });
    const { db: database } = t.app.context.database;
    // Undone in reverse order: the fields' index (0036) reads the facet terms 0031 adds.
    const migration = migrationFor(t, ftsFacetTerms);
    const fields = migrationFor(t, resourceFieldsFts);
    await fields.down!(database as never);
    await migration.down!(database as never);
    await migration.up(database as never);
    await fields.up(database as never);
    // Written behind the application's back: kept pages expire within 5 s.
    t.clock.advance(5001);
    expect(await listed(`search=${name}&tags=${tag.slug}&type=MOD`)).toEqual([resource.id]);
    expect(await listed(`search=${name}&tags=${tag.slug}&type=WORLD`)).toEqual([]);
    expect(await listed(`search=${name}&type=MOD&sortBy=relevance`)).toEqual([resource.id]);
  });
});

describe('migration 0032 (prefix indexes of 4–6 characters on SQLite)', () => {
  /** The prefix lengths FTS5 indexes, from the table's definition (SQLite; PostgreSQL has no such table). */
  async function ftsPrefixes(): Promise<string | undefined> {
    const { db: database, dialect: kind } = t.app.context.database;
    if (kind !== 'sqlite') return undefined;
    const { rows } = await sql<{ sql: string }>`select sql from sqlite_master
      where type = 'table' and name = 'resource_search_fts'`.execute(database);
    return /prefix = '([^']*)'/.exec(rows[0]!.sql)?.[1];
  }

  it('rebuilds the index with them: every prefix of a word finds documents written before and after it', async () => {
    const name = word('zyxwvu');
    const resource = await approvedResource({ name: `Reef ${name}` });
    const { db: database, dialect: kind } = t.app.context.database;
    const migration = migrationFor(t, ftsLongerPrefixes);
    await migration.down!(database as never);
    expect(await ftsPrefixes()).toBe(kind === 'sqlite' ? '2 3' : undefined);
    await migration.up(database as never);
    expect(await ftsPrefixes()).toBe(kind === 'sqlite' ? '2 3 4 5 6' : undefined);
    t.clock.advance(5001);
    for (let length = 2; length <= name.length; length += 1) {
      const prefix = name.slice(0, length);
      expect(await listed(`search=${prefix}`), prefix).toEqual([resource.id]);
      expect(await listed(`search=reef ${prefix}&sortBy=relevance`), prefix).toEqual([resource.id]);
    }
    // The triggers were recreated with the table: a later write reaches the index.
    const renamed = word('harbour');
    expect((await patch(resource.id, { name: `Reef ${renamed}` })).statusCode).toBe(200);
    expect(await listed(`search=${renamed}`)).toEqual([resource.id]);
    expect(await listed(`search=${name.slice(0, 6)}`)).toEqual([]);
  });
});

describe('migration 0033 (word starts as terms of the PostgreSQL documents)', () => {
  it('gives documents written before it their terms, which every search typed as a prefix finds them by', async () => {
    const name = word('qwzrtp');
    const tag = catalogs.tags[4]!;
    const resource = await approvedResource({ name: `Reef ${name} Привет`, tagIds: [tag.id] });
    const { db: database, dialect: kind } = t.app.context.database;
    const migration = migrationFor(t, documentPrefixTerms);
    const vectors = migrationFor(t, resourceSearchVectors);
    const codes = migrationFor(t, resourceFacetCodes);
    const head = migrationFor(t, resourceHeadWords);
    await head.down!(database as never);
    await codes.down!(database as never);
    await vectors.down!(database as never);
    await migration.down!(database as never);
    if (kind === 'postgres') {
      // The queries ask for the terms (match.ts tsPrefixTerm): without them a 3–6 letter start finds nothing.
      expect(await matches(name.slice(0, 4), 'resource_search')).toEqual([]);
      expect(await matches(name.slice(0, 7), 'resource_search')).toEqual([resource.id]);
    }
    await migration.up(database as never);
    await vectors.up(database as never);
    await codes.up(database as never);
    await head.up(database as never);
    t.clock.advance(5001);
    for (let length = 2; length <= name.length; length += 1) {
      const prefix = name.slice(0, length);
      expect(await matches(prefix), prefix).toEqual([resource.id]);
      expect(await listed(`search=${prefix}`), prefix).toEqual([resource.id]);
      expect(await listed(`search=reef ${prefix}&sortBy=relevance`), prefix).toEqual([resource.id]);
      expect(await listed(`search=${prefix}&tags=${tag.slug}&type=MOD`), prefix).toEqual([resource.id]);
      expect(await listed(`search=${prefix}&tags=${tag.slug}&type=WORLD`), prefix).toEqual([]);
    }
    // Words of other scripts have no terms: their starts are matched as prefixes.
    expect(await listed(`search=прив`)).toEqual([resource.id]);
    // A later write reaches the terms: the renamed resource no longer has the old word's starts.
    const renamed = word('jvkxqm');
    expect((await patch(resource.id, { name: `Reef ${renamed}` })).statusCode).toBe(200);
    expect(await listed(`search=${renamed.slice(0, 5)}`)).toEqual([resource.id]);
    expect(await listed(`search=${name.slice(0, 5)}`)).toEqual([]);
  });
});

describe('migration 0034 (the PostgreSQL vectors in a table of their own)', () => {
  it('takes the documents written before it as they are, and its triggers keep them in step after', async () => {
    const [name, short] = [word('brqzvm'), word('kpxwzr')];
    const tag = catalogs.tags[5]!;
    const resource = await approvedResource({ name: `Reef ${name}`, tagIds: [tag.id] });
    const { db: database, dialect: kind } = t.app.context.database;
    const migration = migrationFor(t, resourceSearchVectors);
    const codes = migrationFor(t, resourceFacetCodes);
    const head = migrationFor(t, resourceHeadWords);
    await head.down!(database as never);
    await codes.down!(database as never);
    await migration.down!(database as never);
    // Written while the document was resource_search's generated column: the application writes only the text.
    expect((await patch(resource.id, { shortDescription: `Tidal ${short} pools` })).statusCode).toBe(200);
    if (kind === 'postgres') expect(await matches(short, 'resource_search')).toEqual([resource.id]);
    await migration.up(database as never);
    await codes.up(database as never);
    await head.up(database as never);
    if (kind === 'postgres') {
      // Hash partitions, each moving any toasted document out of its rows.
      const { rows } = await sql<{ options: string[] | null }>`
        select c.reloptions as options from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = 'resource_search_vectors'::regclass`.execute(database);
      expect(rows).toHaveLength(VECTOR_PARTITIONS);
      for (const row of rows) expect(row.options).toEqual(['toast_tuple_target=128']);
    }
    t.clock.advance(5001);
    expect(await matches(short)).toEqual([resource.id]);
    for (const search of [short, name.slice(0, 5), `reef ${name}`]) {
      expect(await listed(`search=${search}`), search).toEqual([resource.id]);
      // The relevance tiers: the name's words (every word in the name, then any) beside the whole document.
      expect(await listed(`search=${search}&sortBy=relevance`), search).toEqual([resource.id]);
      expect(await listed(`search=${search}&tags=${tag.slug}&type=MOD`), search).toEqual([resource.id]);
      expect(await listed(`search=${search}&facets=tags`), search).toEqual([resource.id]);
    }
    // Two of three words in the name (the tier that reads the text beside the names' index).
    expect(await listed(`search=reef ${name} ${short}&sortBy=relevance`)).toEqual([resource.id]);
    // Later writes reach the vectors (checked after every test too), and a deletion removes them.
    const renamed = word('vqtnbx');
    expect((await patch(resource.id, { name: `Reef ${renamed}` })).statusCode).toBe(200);
    expect(await listed(`search=${renamed}&sortBy=relevance`)).toEqual([resource.id]);
    expect(await listed(`search=${name}`)).toEqual([]);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/resources/${resource.id}`,
      headers: owner.headers,
    });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect(await matches(renamed)).toEqual([]);
  });
});

describe("migrations 0035 and 0037 (facet codes: PostgreSQL's beside the vectors, SQLite's beside the documents)", () => {
  /** The facets of a search for `name`, as GET /resources answers them. */
  async function facetsOf(name: string) {
    const body = await listCatalogue(t, `search=${name}&facets=type,tags,categories&limit=50`);
    return body.meta.facets;
  }

  it('gives documents written before it their codes, counted by the facets, and its trigger keeps them after', async () => {
    const name = word('vxqfacet');
    const [first, second, third] = [catalogs.tags[6]!, catalogs.tags[7]!, catalogs.tags[8]!];
    const category = modCategory();
    const resource = await approvedResource({ name: `Reef ${name}`, tagIds: [first.id] });
    const { db: database } = t.app.context.database;
    // Each is a no-op on the other dialect.
    const migrations = [migrationFor(t, resourceFacetCodes), migrationFor(t, documentFacetCodes)];
    // (0043 redefines the vectors' trigger after 0035: it goes first and comes back last.)
    const head = migrationFor(t, resourceHeadWords);
    await head.down!(database as never);
    for (const migration of migrations) await migration.down!(database as never);
    // Written while the documents had no codes.
    expect(
      (await patch(resource.id, { tagIds: [first.id, second.id], categoryIds: [category.id] })).statusCode,
    ).toBe(200);
    for (const migration of migrations) await migration.up(database as never);
    await head.up(database as never);
    t.clock.advance(5001);
    expect(await facetsOf(name)).toEqual({
      type: { MOD: 1 },
      tags: { [first.slug]: 1, [second.slug]: 1 },
      categories: { [category.slug]: 1 },
    });
    // A later change of the tags reaches the codes (vectorsOutOfStep and codedFacetValues check every row after
    // each test).
    expect((await patch(resource.id, { tagIds: [third.id] })).statusCode).toBe(200);
    t.clock.advance(5001);
    expect((await facetsOf(name))?.tags).toEqual({ [third.slug]: 1 });
    // Catalog filters alone are counted from the documents' facet terms and codes too.
    const tagged = await listCatalogue(t, `tags=${third.slug}&facets=tags&limit=50`);
    expect(tagged.meta.facets?.tags?.[third.slug]).toBe(tagged.meta.total);
  });
});
