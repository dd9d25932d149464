// Migration 0041: the indexes of the servers' relevance tiers. A b-tree of the exact name on both dialects; on
// PostgreSQL the name's and the name-and-keywords' words as vectors of their own, equal to the document's A and
// B parts, so that a tier is matched from its vector's index (search/directory-match.ts leadingVectors). After
// down and up, the relevance pages (server-relevance.repo.ts) are those of the tiers.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { serverRelevanceTiers } from '../../src/core/db/migrations/0041_server_relevance_tiers.js';
import { DIRECTORY_CACHE_TTL_MS } from '../../src/core/http/page-cache.js';
import { migrationFor } from '../helpers/migrations.js';
import type { TestApp } from '../helpers/app.js';
import type { TestUser } from '../helpers/factories.js';
import { createApprovedServer } from '../servers/helpers.js';
import type { CatalogRef, ServerBody } from '../servers/helpers.js';
import { withServerSearchApp } from './server-search-app.js';

let t: TestApp;
let owner: TestUser;
let moderator: TestUser;
let tags: CatalogRef[];

withServerSearchApp((setting) => ({ t, owner, moderator, tags } = setting));

const database = () => t.app.context.database;
const migration = () => migrationFor(t, serverRelevanceTiers);

/** The relevance order of a search's servers, as their ids. */
async function relevant(query: string): Promise<string[]> {
  const response = await t.app.inject({ method: 'GET', url: `/servers?${query}&sort=relevance&limit=100` });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { servers: Array<{ id: string }> }).servers.map((server) => server.id);
}

/** PostgreSQL: the documents whose tier vectors are not their document's A and B parts (facet terms aside). */
async function vectorsApart(): Promise<number> {
  const { rows } = await sql<{ apart: string | number }>`select count(*) as apart from server_search
    where name_words is distinct from ts_filter(document, '{a}')
      or head_words is distinct from ts_filter(document, '{a,b}')`.execute(database().db);
  return Number(rows[0]!.apart);
}

/** The indexes of server_search that 0041 creates, by name. */
async function tierIndexes(): Promise<string[]> {
  const { rows } =
    database().dialect === 'postgres'
      ? await sql<{ name: string }>`select indexname as name from pg_indexes
          where schemaname = current_schema() and tablename = 'server_search' and indexname like 'server_search_%' order by 1`.execute(
          database().db,
        )
      : await sql<{ name: string }>`select name from sqlite_master
          where type = 'index' and tbl_name = 'server_search' and name like 'server_search_%' order by 1`.execute(
          database().db,
        );
  return rows.map((row) => row.name).filter((name) => /name_text|name_words|head_words/.test(name));
}

describe('migration 0041 (the indexes of the servers relevance tiers)', () => {
  it('indexes the exact name and (PostgreSQL) the tiers words; relevance pages by tier before and after', async () => {
    const postgres = database().dialect === 'postgres';
    const make = (name: string, extra: Record<string, unknown> = {}) =>
      createApprovedServer(t.app, owner, moderator, { name, ...extra });
    const servers: ServerBody[] = [
      // Tier 4 needs the owner: none here. Tier 3: the description; 2: the short description or a tag; 1: the
      // name; 0: the exact name.
      await make('Quartz Harbor', { description: 'A cove of **tapir** reefs and lanterns.' }),
      await make('Lantern Docks', { shortDescription: 'Tapir rides at dusk' }),
      await make('Tapir Lantern Keep'),
      await make('Tapir'),
      await make('Moss Arcade', { tagIds: [tags[0]!.id], description: 'tapir lanterns all night' }),
    ];
    const ids = (...indexes: number[]) => indexes.map((index) => servers[index]!.id);
    const before = await relevant('search=tapir');
    expect(before.slice(0, 3)).toEqual(ids(3, 2, 1));
    expect([...before.slice(3)].sort()).toEqual(ids(0, 4).sort());
    expect(await tierIndexes()).toEqual(
      postgres
        ? ['server_search_head_words_idx', 'server_search_name_text_idx', 'server_search_name_words_idx']
        : ['server_search_name_text_idx'],
    );
    if (postgres) {
      expect(await vectorsApart()).toBe(0);
      // The name's words are kept in the row; the head's go out of line with the other long values (0039).
      const { rows } = await sql<{
        name: string;
        storage: string;
      }>`select attname as name, attstorage as storage
        from pg_attribute where attrelid = 'server_search'::regclass and attname in ('name_words', 'head_words')
        order by 1`.execute(database().db);
      expect(rows).toEqual([
        { name: 'head_words', storage: 'x' },
        { name: 'name_words', storage: 'p' },
      ]);
    }

    await migration().down!(database().db as never);
    expect(await tierIndexes()).toEqual([]);
    await migration().up(database().db as never);
    expect(await tierIndexes()).toHaveLength(postgres ? 3 : 1);
    if (postgres) expect(await vectorsApart()).toBe(0);

    // Written after the migration: the vectors follow the document (generated columns).
    servers.push(await make('Tapir Lantern', { tagIds: [tags[0]!.id] }));
    if (postgres) expect(await vectorsApart()).toBe(0);
    t.clock.advance(DIRECTORY_CACHE_TTL_MS + 1);
    expect((await relevant('search=tapir%20lantern')).slice(0, 3)).toEqual(ids(5, 2, 1));
    expect(await relevant(`search=tapir&tags=${tags[0]!.id}`)).toEqual(ids(5, 4));
  });
});
