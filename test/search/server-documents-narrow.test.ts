// Migration 0039: on PostgreSQL server_search keeps each row narrow (its id and name in the row, its long values
// out of line, whatever the row's size) and rewrites the rows stored before it, so that counting a search's
// matches visits few pages. On SQLite the migration changes nothing; the searches below are checked on both
// dialects.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { serverDocumentsNarrow } from '../../src/core/db/migrations/0039_server_documents_narrow.js';
import { migrationFor } from '../helpers/migrations.js';
import type { TestApp } from '../helpers/app.js';
import type { TestUser } from '../helpers/factories.js';
import { createApprovedServer, listedServerIds } from '../servers/helpers.js';
import type { CatalogRef, ServerBody } from '../servers/helpers.js';
import { withServerSearchApp } from './server-search-app.js';

let t: TestApp;
let owner: TestUser;
let moderator: TestUser;
let tag: CatalogRef;

withServerSearchApp((setting) => {
  ({ t, owner, moderator } = setting);
  tag = setting.tags[0]!;
});

const database = () => t.app.context.database;
const migration = () => migrationFor(t, serverDocumentsNarrow);

/** PostgreSQL: the pages of server_search's heap (its TOAST table apart). */
async function heapPages(): Promise<number> {
  const { rows } = await sql<{ pages: string }>`
    select pg_relation_size('server_search') / current_setting('block_size')::int as pages`.execute(
    database().db,
  );
  return Number(rows[0]!.pages);
}

/** PostgreSQL: the storage of the id and name columns, and whether the table has the filler column. */
async function tableState(): Promise<{ storages: string[]; filler: boolean }> {
  const { rows } = await sql<{ attname: string; attstorage: string }>`
    select attname, attstorage from pg_attribute
    where attrelid = 'server_search'::regclass and attnum > 0 and not attisdropped
    order by attname`.execute(database().db);
  const storage = new Map(rows.map((row) => [row.attname, row.attstorage]));
  return {
    storages: [storage.get('server_id')!, storage.get('name_text')!],
    filler: storage.has('toast_filler'),
  };
}

const listed = (query: string) => listedServerIds(t.app, query);

describe('migration 0039 (server_search rows narrow whatever their size)', () => {
  it('rewrites the rows narrow; searches find the same servers; later writes are found', async () => {
    const postgres = database().dialect === 'postgres';
    await migration().down!(database().db as never);
    // Rows of ~1.5 KB (a description of 60 words, its text and document): under PostgreSQL's ~2 KB threshold,
    // so stored whole in the row before the migration, about five to a page.
    const description = (seed: number) =>
      Array.from({ length: 60 }, (_, index) => `marsh${(seed * 61 + index) % 997}word`).join(' ');
    // Letters only: a digit could also start a word of the owner's random username, which is in every document.
    const token = (seed: number) => `tok${String.fromCharCode(97 + (seed % 26), 97 + Math.floor(seed / 26))}`;
    const servers: ServerBody[] = [];
    for (let seed = 0; seed < 30; seed += 1) {
      servers.push(
        await createApprovedServer(t.app, owner, moderator, {
          name: `Fenlight Keep ${token(seed)}`,
          description: `${description(seed)} glimmerfen`,
          tagIds: [tag.id],
        }),
      );
    }
    const ids = servers.map((server) => server.id).sort();
    const before = postgres ? await heapPages() : 0;
    if (postgres) {
      expect(before).toBeGreaterThanOrEqual(5);
      expect(await tableState()).toEqual({ storages: ['x', 'x'], filler: false });
    }

    await migration().up(database().db as never);
    if (postgres) {
      // ~200 bytes a row: the 30 rows (and whatever rows the suite wrote before) in far fewer pages.
      expect(await heapPages()).toBeLessThanOrEqual(Math.floor(before / 3));
      expect(await tableState()).toEqual({ storages: ['p', 'p'], filler: true });
    }
    // The rewritten rows answer searches as before: a word of the description, a prefix, a tag, relevance.
    t.clock.advance(5001);
    expect(await listed('search=glimmerfen')).toEqual(ids);
    expect(await listed('search=glimmerf')).toEqual(ids);
    expect(await listed(`search=glimmerfen&tags=${tag.id}`)).toEqual(ids);
    expect(await listed(`search=fenlight%20keep%20${token(7)}&sortBy=relevance`)).toEqual([servers[7]!.id]);
    const word = description(3).split(' ')[5]!;
    const withWord = servers.filter((_server, seed) => description(seed).split(' ').includes(word));
    expect(await listed(`search=${word}`)).toEqual(withWord.map((server) => server.id).sort());

    // A server edited after the migration is found by its new text, and no longer by its old text.
    const edited = await t.app.inject({
      method: 'PATCH',
      url: `/servers/${servers[0]!.id}`,
      headers: owner.headers,
      payload: { description: `${description(0)} duskmere` },
    });
    expect(edited.statusCode, edited.body).toBe(200);
    t.clock.advance(5001);
    expect(await listed('search=duskmere')).toEqual([servers[0]!.id]);
    expect(await listed('search=glimmerfen')).toEqual(ids.filter((id) => id !== servers[0]!.id));
  });
});
