// An exclusive rebuild (`rebuildResourceSearch(..., { exclusive: true })`: migrations, the scale seed, `cli search
// rebuild --exclusive`) sets the per-row index upkeep aside and redoes it once at the end: on PostgreSQL the
// secondary indexes of resource_search are dropped and recreated, its triggers turned off and the facet counts
// and the name-word dictionary recomputed in one statement each; on SQLite the FTS5 triggers are off and FTS5 rebuilt once. It must leave exactly
// what an online rebuild leaves (documents, facet counts, indexes, triggers; the directory indexes' GIN indexes
// are set aside the same way on PostgreSQL), keep search answering through the
// app and the triggers moving the counts afterwards, and be all or nothing.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rebuildResourceSearch, rebuildSearchIndexes } from '../../src/modules/search/rebuild.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { createResource, moderate, readCatalogs } from '../resources/helpers.js';
import type { Catalogs, ResourceListBody } from '../resources/helpers.js';

let t: TestApp;
let owner: TestUser;
let moderator: TestUser;
let catalogs: Catalogs;
const approvedIds: string[] = [];
/** The APPROVED ones named Quillwort, and those of them named Garden. */
const quillworts: string[] = [];
const gardens: string[] = [];

const db = () => t.app.context.database.db;
const dialect = () => t.app.context.database.dialect;

beforeAll(async () => {
  t = await buildTestApp();
  [owner, moderator] = await Promise.all([createUser(t.app), createUser(t.app, { role: 'MODERATOR' })]);
  catalogs = await readCatalogs(t.app);
  // A few resources of every type with overlapping tags, categories and game versions, most of them APPROVED.
  const types = ['MOD', 'PLUGIN', 'WORLD'];
  for (let i = 0; i < 12; i++) {
    const type = types[i % types.length]!;
    const categories = catalogs.categories.filter((category) => category.resourceType === type);
    const created = await createResource(t.app, owner, {
      name: `Quillwort ${i} ${i % 2 === 0 ? 'Garden' : 'Forge'}`,
      type,
      description: `Markdown **body** number ${i} about quillwort meadows.`,
      tagIds: [catalogs.tags[i % 5]!.id, catalogs.tags[(i + 2) % 7]!.id],
      categoryIds: categories.length > 0 ? [categories[i % categories.length]!.id] : [],
      gameVersionIds: catalogs.gameVersions.slice(i % 3, (i % 3) + 2).map((version) => version.id),
    });
    if (i % 4 !== 3) {
      await moderate(t.app, moderator, created.id, 'APPROVE');
      approvedIds.push(created.id);
      quillworts.push(created.id);
      if (i % 2 === 0) gardens.push(created.id);
    }
  }
});
afterAll(async () => t?.close());

/** Everything a rebuild leaves: documents (without their doc_id), facet counts, indexes and triggers. */
async function snapshot() {
  const documents = await db()
    .selectFrom('resource_search')
    .select(['resource_id', 'name_text', 'keywords_text', 'body_text', 'owner_text', 'facet_keys'])
    .orderBy('resource_id')
    .execute();
  const facetCounts = await db()
    .selectFrom('resource_facet_counts')
    .select(['facet', 'scope', 'value', 'resource_count'])
    .where('resource_count', '<>', 0)
    .orderBy('facet')
    .orderBy('scope')
    .orderBy('value')
    .execute();
  const schema =
    dialect() === 'postgres'
      ? await sql<{ name: string; definition: string }>`
          select indexname as name, indexdef as definition from pg_indexes
          where schemaname = current_schema()
            and (tablename in ('resource_search', 'resource_search_vectors', 'resource_facet_counts',
              'resource_name_words', 'server_search', 'server_search_vectors', 'team_search', 'user_search')
              or tablename like 'resource_search_vectors\_%' or tablename like 'server_search_vectors\_%')
          union all
          select 'invalid: ' || indexrelid::regclass, '' from pg_index where not indisvalid
          union all
          select tgname, tgenabled::text from pg_trigger
          where tgrelid in ('resource_search'::regclass, 'server_search'::regclass) and not tgisinternal
          order by 1`.execute(db())
      : await sql<{ name: string; definition: string }>`
          select name, sql as definition from sqlite_master
          where tbl_name in ('resource_search', 'resource_search_fts', 'resource_facet_counts')
            and type in ('index', 'trigger')
          order by name`.execute(db());
  const users = await db()
    .selectFrom('user_search')
    .select(['user_id', 'name_text'])
    .orderBy('user_id')
    .execute();
  // PostgreSQL's dictionary of name words (typo tolerance), kept by a trigger like the facet counts.
  const nameWords =
    dialect() === 'postgres'
      ? (
          await sql<{ word: string; resource_count: number }>`
            select word, resource_count from resource_name_words where resource_count <> 0 order by word`.execute(
            db(),
          )
        ).rows
      : [];
  // PostgreSQL's vectors (migration 0034), kept by triggers and recomputed by an exclusive rebuild.
  const vectors =
    dialect() === 'postgres'
      ? (
          await sql<{ resource_id: string; name_words: string; document: string }>`
            select resource_id, name_words::text, document::text, facet_codes::text from resource_search_vectors
            order by resource_id`.execute(db())
        ).rows
      : [];
  return { documents, facetCounts, schema: schema.rows, users, nameWords, vectors };
}

/** The name words of the documents, each with the number of documents holding it (what the dictionary keeps). */
function nameWordsOf(documents: ReadonlyArray<{ name_text: string }>) {
  const counts = new Map<string, number>();
  for (const document of documents) {
    for (const word of new Set(document.name_text.split(' ').filter((w) => w !== ''))) {
      counts.set(word, (counts.get(word) ?? 0) + 1);
    }
  }
  return [...counts]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([word, resource_count]) => ({ word, resource_count }));
}

/** The ids a search answers through the app. */
async function searchIds(query: string): Promise<string[]> {
  const response = await t.app.inject({
    method: 'GET',
    url: `/resources?search=${encodeURIComponent(query)}&limit=100`,
  });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as ResourceListBody).resources.map((resource) => resource.id).sort();
}

describe('exclusive resource rebuild', () => {
  it('leaves the same documents, facet counts, indexes and triggers as an online rebuild', async () => {
    await rebuildSearchIndexes(db(), dialect());
    const online = await snapshot();
    expect(online.documents.map((document) => document.resource_id)).toEqual([...approvedIds].sort());
    expect(online.facetCounts.length).toBeGreaterThan(0);
    if (dialect() === 'postgres') {
      // The GIN index of the document and the triggers keeping the facet counts, enabled ('O').
      expect(online.schema).toContainEqual(expect.objectContaining({ name: 'resource_search_document_idx' }));
      expect(online.schema).toContainEqual({ name: 'resource_search_facets_aid', definition: 'O' });
      expect(online.schema).toContainEqual({ name: 'resource_name_words_aid', definition: 'O' });
      // The vectors' table (0034): its two GIN indexes, the triggers that keep it, a row per document.
      expect(online.schema).toContainEqual(expect.objectContaining({ name: 'resource_search_name_idx' }));
      // Each partition's own (a partitioned table's index is only the sum of its partitions').
      for (const index of [
        'resource_search_vectors_0_document_idx',
        'resource_search_vectors_7_name_words_idx',
      ]) {
        expect(online.schema).toContainEqual(expect.objectContaining({ name: index }));
      }
      expect(online.schema).toContainEqual({ name: 'resource_search_vectors_ai', definition: 'O' });
      expect(online.schema).toContainEqual({ name: 'resource_search_vectors_au', definition: 'O' });
      // The servers' copies (0045): the GIN index of each partition and the triggers that keep them.
      expect(online.schema).toContainEqual(
        expect.objectContaining({ name: 'server_search_vectors_3_document_idx' }),
      );
      expect(online.schema).toContainEqual({ name: 'server_search_vectors_au', definition: 'O' });
      expect(online.vectors.map((row) => row.resource_id)).toEqual([...approvedIds].sort());
      expect(online.nameWords).toEqual(nameWordsOf(online.documents));
      expect(online.nameWords).toContainEqual({ word: 'quillwort', resource_count: quillworts.length });
    }

    expect(online.users.length).toBeGreaterThanOrEqual(2);

    await t.app.context.database.db.deleteFrom('resource_search').execute();
    const documents = await rebuildSearchIndexes(db(), dialect(), undefined, undefined, { exclusive: true });
    expect(documents['resources']).toBe(approvedIds.length);
    expect(await snapshot()).toEqual(online);
    if (dialect() === 'sqlite') {
      for (const fts of ['resource_search_fts', 'resource_fields_fts']) {
        await sql`insert into ${sql.table(fts)}(${sql.ref(fts)}, rank) values ('integrity-check', 1)`.execute(
          db(),
        );
      }
    }
    expect(await searchIds('quillwort')).toEqual([...quillworts].sort());
    expect(await searchIds('quillwort garden')).toEqual([...gardens].sort());
  });

  it('leaves the triggers on: a later approval moves the facet counts and reaches search', async () => {
    await rebuildResourceSearch(db(), dialect(), undefined, { exclusive: true });
    const typeCount = async () =>
      Number(
        (
          await db()
            .selectFrom('resource_facet_counts')
            .select('resource_count')
            .where('facet', '=', 'type')
            .where('scope', '=', '')
            .where('value', '=', 'PREFAB')
            .executeTakeFirst()
        )?.resource_count ?? 0,
      );
    const before = await typeCount();
    const created = await createResource(t.app, owner, { name: 'Sporeling Prefab', type: 'PREFAB' });
    await moderate(t.app, moderator, created.id, 'APPROVE');
    approvedIds.push(created.id);
    expect(await typeCount()).toBe(before + 1);
    expect(await searchIds('sporeling')).toEqual([created.id]);
  });

  it('is all or nothing: a rebuild failing half-way leaves the index, counts and indexes as they were', async () => {
    const before = await snapshot();
    await expect(
      rebuildResourceSearch(
        db(),
        dialect(),
        () => {
          throw new Error('interrupted');
        },
        { exclusive: true },
      ),
    ).rejects.toThrow('interrupted');
    expect(await snapshot()).toEqual(before);
    expect(await searchIds('quillwort')).toEqual([...quillworts].sort());
  });
});
