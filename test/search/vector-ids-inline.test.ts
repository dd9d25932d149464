// Migration 0038: PostgreSQL keeps the resource id of each resource_search_vectors row in the row (storage
// plain) instead of letting toast_tuple_target = 128 move it to the TOAST table beside the document, and
// rewrites the rows stored before it. Reading the ids of matches (a search's count hands them on, a search with
// filters joins them) then reads the row alone. On SQLite the migration changes nothing; the searches below
// are checked on both dialects.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vectorIdsInline } from '../../src/core/db/migrations/0038_vector_ids_inline.js';
import { buildTestApp } from '../helpers/app.js';
import { migrationFor } from '../helpers/migrations.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { createResource, moderate, readCatalogs } from '../resources/helpers.js';
import type { Catalogs, ResourceBody } from '../resources/helpers.js';
import { listCatalogue } from './catalogue.js';

let t: TestApp;
let owner: TestUser;
let moderator: TestUser;
let catalogs: Catalogs;

beforeAll(async () => {
  t = await buildTestApp();
  [owner, moderator] = await Promise.all([createUser(t.app), createUser(t.app, { role: 'MODERATOR' })]);
  catalogs = await readCatalogs(t.app);
});
afterAll(async () => t?.close());

const database = () => t.app.context.database;
const migration = () => migrationFor(t, vectorIdsInline);

async function approvedResource(body: Record<string, unknown>): Promise<ResourceBody> {
  const created = await createResource(t.app, owner, body);
  return moderate(t.app, moderator, created.id, 'APPROVE');
}

/**
 * PostgreSQL: how each vectors row stores its id. pg_column_size is the size stored: inline, the text with its
 * varlena header (more than its octets); out of line, the size of the TOAST value alone (its octets, or fewer
 * compressed).
 */
async function idStorage(): Promise<Map<string, 'inline' | 'toasted'>> {
  const { rows } = await sql<{ resource_id: string; inline: boolean }>`
    select resource_id, pg_column_size(resource_id) > octet_length(resource_id) as inline
    from resource_search_vectors`.execute(database().db);
  return new Map(rows.map((row) => [row.resource_id, row.inline ? 'inline' : 'toasted']));
}

/** PostgreSQL: the id column's storage on the table and each partition, and whether any is still clustered. */
async function partitionsState(): Promise<{ storages: string[]; clustered: number }> {
  const { rows } = await sql<{ storage: string; clustered: boolean }>`
    select a.attstorage as storage, coalesce(bool_or(x.indisclustered), false) as clustered
    from pg_class c
    join pg_attribute a on a.attrelid = c.oid and a.attname = 'resource_id'
    left join pg_index x on x.indrelid = c.oid
    where c.oid = 'resource_search_vectors'::regclass
      or c.oid in (select inhrelid from pg_inherits where inhparent = 'resource_search_vectors'::regclass)
    group by c.oid, a.attstorage`.execute(database().db);
  return { storages: rows.map((row) => row.storage), clustered: rows.filter((row) => row.clustered).length };
}

/** The ids GET /resources lists for a query string, its total checked against them. */
async function listed(query: string): Promise<string[]> {
  const body = await listCatalogue(t, `${query}&limit=50`);
  expect(body.meta.total, query).toBe(body.resources.length);
  return body.resources.map((resource) => resource.id).sort();
}

describe('migration 0038 (the vectors keep their resource ids in their rows)', () => {
  it('rewrites ids stored out of line into the rows; searches find the same resources; later rows stay inline', async () => {
    const [first, second] = [catalogs.tags[0]!, catalogs.tags[1]!];
    // PostgreSQL toasts a row past ~2 KB (a document of a few hundred words), then moves attributes out until
    // the row fits the table's 128-byte target: the document, and the id beside the name's words and the codes.
    const description = Array.from({ length: 300 }, (_, index) => `lexeme${index}tide`).join(' ');
    const tagged = { tagIds: [first.id, second.id], description };
    const before = await approvedResource({ name: 'Quartzline Harbour', ...tagged });
    const postgres = database().dialect === 'postgres';

    await migration().down!(database().db as never);
    // Written while the id may move out: an edit rewrites the row, a new resource adds one.
    const renamed = await t.app.inject({
      method: 'PATCH',
      url: `/resources/${before.id}`,
      headers: owner.headers,
      payload: { name: 'Quartzline Haven' },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    const during = await approvedResource({ name: 'Quartzline Lantern', ...tagged });
    const ids = [before.id, during.id].sort();
    if (postgres) {
      // What the migration undoes: PostgreSQL put these rows' ids in the TOAST table.
      const stored = await idStorage();
      expect(ids.map((id) => stored.get(id))).toEqual(['toasted', 'toasted']);
      expect((await partitionsState()).storages.every((storage) => storage === 'x')).toBe(true);
    }

    await migration().up(database().db as never);
    if (postgres) {
      const stored = await idStorage();
      expect([...stored.values()].every((storage) => storage === 'inline')).toBe(true);
      expect(ids.map((id) => stored.get(id))).toEqual(['inline', 'inline']);
      // Plain on the table and every partition; none left clustered on its primary key.
      const state = await partitionsState();
      expect(state.storages.length).toBeGreaterThan(1);
      expect(state.storages.every((storage) => storage === 'p')).toBe(true);
      expect(state.clustered).toBe(0);
    }
    // The rewritten rows answer searches as before: counted (with the ids handed on), filtered, faceted.
    t.clock.advance(5001);
    expect(await listed('search=quartzline')).toEqual(ids);
    expect(await listed('search=quartzl')).toEqual(ids);
    expect(await listed(`search=quartzline&tags=${first.slug}&type=MOD`)).toEqual(ids);
    expect(await listed(`search=quartzline&tags=${first.slug}&type=WORLD`)).toEqual([]);
    expect(await listed('search=quartzline lantern&sortBy=relevance')).toEqual([during.id]);
    const faceted = await listCatalogue(t, 'search=quartzline&facets=tags&limit=50');
    expect(faceted.meta.facets?.tags).toEqual({ [first.slug]: 2, [second.slug]: 2 });

    // A row written after the migration keeps its id inline.
    const after = await approvedResource({ name: 'Quartzline Beacon', ...tagged });
    if (postgres) expect((await idStorage()).get(after.id)).toBe('inline');
    t.clock.advance(5001);
    expect(await listed('search=quartzline')).toEqual([...ids, after.id].sort());
  });
});
