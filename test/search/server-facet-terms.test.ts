// Migration 0040: server_search holds each server's tags and categories as terms (`facet_terms`), filled for the
// documents written before it exactly as the document writer writes them; on PostgreSQL they are lexemes of the
// document too, which a search with tags or categories reads in its one index scan. The searches below are
// checked on both dialects.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { serverFacetTerms } from '../../src/core/db/migrations/0040_server_facet_terms.js';
import { serverSearchVectors } from '../../src/core/db/migrations/0045_server_search_vectors.js';
import { DIRECTORY_CACHE_TTL_MS } from '../../src/core/http/page-cache.js';
import { migrationFor } from '../helpers/migrations.js';
import type { TestApp } from '../helpers/app.js';
import type { TestUser } from '../helpers/factories.js';
import { createApprovedServer, listedServerIds } from '../servers/helpers.js';
import type { CatalogRef, ServerBody } from '../servers/helpers.js';
import { withServerSearchApp } from './server-search-app.js';

let t: TestApp;
let owner: TestUser;
let moderator: TestUser;
let tags: CatalogRef[];
let categories: CatalogRef[];

withServerSearchApp((setting) => ({ t, owner, moderator, tags, categories } = setting));

const database = () => t.app.context.database;
const migration = () => migrationFor(t, serverFacetTerms);
const copies = () => migrationFor(t, serverSearchVectors);

/** Every document's stored terms, by server id. */
async function storedTerms(): Promise<Record<string, string>> {
  const rows = await database().db.selectFrom('server_search').select(['server_id', 'facet_terms']).execute();
  return Object.fromEntries(rows.map((row) => [row.server_id, row.facet_terms]));
}

/** PostgreSQL: whether any document holds a lexeme starting with '#' (a facet term). */
async function documentsHoldTerms(): Promise<boolean> {
  const { rows } = await sql<{ held: boolean }>`select exists (
    select 1 from server_search, unnest(document) u where u.lexeme like '#%') as held`.execute(database().db);
  return rows[0]!.held;
}

const listed = (query: string) => listedServerIds(t.app, query);

describe('migration 0040 (server tags and categories as document terms)', () => {
  it('fills the terms of the documents written before it as the writer does; searches with lists find them', async () => {
    const postgres = database().dialect === 'postgres';
    const lists = [
      { tagIds: [tags[0]!.id, tags[1]!.id], categoryIds: [categories[0]!.id] },
      { tagIds: [tags[1]!.id], categoryIds: [] },
      { tagIds: [], categoryIds: [categories[0]!.id, categories[1]!.id] },
      { tagIds: [], categoryIds: [] },
    ];
    const servers: ServerBody[] = [];
    for (const [index, list] of lists.entries()) {
      servers.push(
        await createApprovedServer(t.app, owner, moderator, {
          name: `Okapi Station ${'abcd'[index]}`,
          ...list,
        }),
      );
    }
    const written = await storedTerms();
    expect(written[servers[3]!.id]).toBe('');
    expect(written[servers[1]!.id]).toBe(`#tag/${tags[1]!.id}`);
    if (postgres) expect(await documentsHoldTerms()).toBe(true);

    // Undone in the migrator's order: 0045's triggers read the document 0040 drops and adds again.
    await copies().down!(database().db as never);
    await migration().down!(database().db as never);
    if (postgres) expect(await documentsHoldTerms()).toBe(false);
    await migration().up(database().db as never);
    await copies().up(database().db as never);
    expect(await storedTerms()).toEqual(written);
    if (postgres) expect(await documentsHoldTerms()).toBe(true);

    t.clock.advance(DIRECTORY_CACHE_TTL_MS + 1);
    const ids = (...indexes: number[]) => indexes.map((index) => servers[index]!.id).sort();
    expect(await listed('search=okapi')).toEqual(ids(0, 1, 2, 3));
    expect(await listed(`search=okapi&tags=${tags[1]!.id}`)).toEqual(ids(0, 1));
    expect(await listed(`search=okap&tags=${tags[0]!.id}&categories=${categories[0]!.id}`)).toEqual(ids(0));
    expect(await listed(`search=okapi&categories=${categories[1]!.id},${categories[0]!.id}`)).toEqual(
      ids(0, 2),
    );
    expect(await listed(`search=okapi%20station&tags=${tags[1]!.id}&sort=relevance`)).toEqual(ids(0, 1));
    const faceted = await t.app.inject({
      method: 'GET',
      url: `/servers?search=okapi&tags=${tags[1]!.id}&facets=categories`,
    });
    expect(faceted.json().meta.facets.categories).toEqual({ [categories[0]!.slug]: 1 });
  });
});
