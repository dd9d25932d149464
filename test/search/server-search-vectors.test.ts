// Migration 0045: on PostgreSQL each server's document is copied by triggers into server_search_vectors (hash
// partitions), which the counts and facets of a search read. The copies must follow every write of server_search
// (approval, edits, tags, the owner's names, suspension, deletion, rebuilds), be left alone when the document does
// not change, and the totals must stay exact. On SQLite the migration changes nothing and the same answers hold.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { serverSearchVectors } from '../../src/core/db/migrations/0045_server_search_vectors.js';
import { rebuildSearchIndexes } from '../../src/modules/search/rebuild.js';
import type { TestApp } from '../helpers/app.js';
import type { TestUser } from '../helpers/factories.js';
import { migrationFor } from '../helpers/migrations.js';
import {
  createApprovedServer,
  createServer,
  listedServerIds,
  moderate,
  serverVectorsOutOfStep,
} from '../servers/helpers.js';
import type { CatalogRef } from '../servers/helpers.js';
import { statementsOf } from './statements.js';
import { withServerSearchApp } from './server-search-app.js';

let t: TestApp;
let owner: TestUser;
let moderator: TestUser;
let tags: CatalogRef[];

withServerSearchApp((setting) => ({ t, owner, moderator, tags } = setting));

const database = () => t.app.context.database;
const postgres = () => database().dialect === 'postgres';
const outOfStep = () => (postgres() ? serverVectorsOutOfStep(t.app) : Promise.resolve([]));

/** The ids a query lists (its total checked against them), past the page cache. */
async function listed(query: string): Promise<string[]> {
  t.clock.advance(5001);
  return listedServerIds(t.app, query);
}

/** PostgreSQL: the transaction that last wrote a server's row in `table` (xmin). */
async function lastWriter(table: 'server_search' | 'server_search_vectors', serverId: string) {
  const { rows } = await sql<{ xmin: string }>`select xmin::text as xmin from ${sql.table(table)}
    where server_id = ${serverId}`.execute(database().db);
  return rows[0]?.xmin;
}

async function patch(url: string, payload: Record<string, unknown>) {
  const response = await t.app.inject({ method: 'PATCH', url, headers: owner.headers, payload });
  expect(response.statusCode, response.body).toBe(200);
}

describe('server_search_vectors (migration 0045)', () => {
  it('copies each document as server_search changes, and only when the document does', async () => {
    const quay = await createApprovedServer(t.app, owner, moderator, {
      name: 'Lanternmoss Harbor',
      description: 'A tidepool market.',
      tagIds: [tags[0]!.id],
    });
    const spire = await createApprovedServer(t.app, owner, moderator, {
      name: 'Lanternmoss Spire',
      tagIds: [tags[1]!.id],
    });
    // Not APPROVED: no document, no copy.
    await createServer(t.app, owner, { name: 'Lanternmoss Pending' });
    const both = [quay.id, spire.id].sort();
    expect(await outOfStep()).toEqual([]);
    expect(await listed('search=lanternmoss')).toEqual(both);
    if (postgres()) expect(await lastWriter('server_search_vectors', quay.id)).toBeDefined();

    await patch(`/servers/${quay.id}`, { name: 'Lanternmoss Quay', tagIds: [tags[1]!.id] });
    expect(await outOfStep()).toEqual([]);
    expect(await listed('search=quay')).toEqual([quay.id]);
    expect(await listed('search=harbor')).toEqual([]);
    expect(await listed(`search=lanternmoss&tags=${tags[1]!.id}`)).toEqual(both);
    expect(await listed(`search=lanternmoss&tags=${tags[0]!.id}`)).toEqual([]);

    // The owner's names are in every one of their servers' documents.
    await patch('/users/me', { displayName: 'Driftwood Warden' });
    expect(await outOfStep()).toEqual([]);
    expect(await listed('search=driftwood%20lanternmoss')).toEqual(both);

    if (postgres()) {
      // A row written again with the same text (as a document refresh may) leaves its copy alone.
      const [row, copy] = await Promise.all([
        lastWriter('server_search', quay.id),
        lastWriter('server_search_vectors', quay.id),
      ]);
      await sql`update server_search set name_text = name_text, facet_terms = facet_terms
        where server_id = ${quay.id}`.execute(database().db);
      expect(await lastWriter('server_search', quay.id)).not.toBe(row);
      expect(await lastWriter('server_search_vectors', quay.id)).toBe(copy);
      // A changed one is copied.
      await sql`update server_search set body_text = body_text || ' kelpfrond'
        where server_id = ${quay.id}`.execute(database().db);
      expect(await lastWriter('server_search_vectors', quay.id)).not.toBe(copy);
      expect(await outOfStep()).toEqual([]);
      expect(await listed('search=kelpfrond')).toEqual([quay.id]);
    }

    await moderate(t.app, moderator, spire.id, 'suspend');
    expect(await outOfStep()).toEqual([]);
    expect(await listed('search=lanternmoss')).toEqual([quay.id]);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/servers/${quay.id}`,
      headers: owner.headers,
    });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect(await outOfStep()).toEqual([]);
    expect(await listed('search=lanternmoss')).toEqual([]);
  });

  it('is what the counts and facets of a search read on PostgreSQL; the totals stay exact', async () => {
    const made: Array<{ id: string }> = [];
    for (let i = 0; i < 4; i += 1) {
      made.push(
        await createApprovedServer(t.app, owner, moderator, {
          name: `Brinecrest ${i}`,
          tagIds: [tags[i % 2]!.id],
        }),
      );
    }
    t.clock.advance(5001);
    const statements = await statementsOf(async () => {
      expect(await listed('search=brinecrest&facets=tags')).toEqual(made.map((s) => s.id).sort());
      const tagged = made.filter((_server, i) => i % 2 === 0).map((s) => s.id);
      expect(await listed(`search=brinecrest&tags=${tags[0]!.id}`)).toEqual(tagged.sort());
    });
    const counts = statements.filter(({ text }) => text.startsWith('select count(*) as count'));
    const facets = statements.filter(({ text }) => text.includes('with m (id) as materialized'));
    expect(counts.length).toBeGreaterThanOrEqual(2);
    expect(facets).toHaveLength(1);
    for (const { text } of [...counts, ...facets]) {
      expect(text.includes('"server_search_vectors"'), text).toBe(postgres());
    }
  });

  it('is rebuilt in step by an exclusive and an online rebuild, its GIN index with it', async () => {
    await createApprovedServer(t.app, owner, moderator, { name: 'Saltmarrow Keep' });
    for (const exclusive of [true, false]) {
      await rebuildSearchIndexes(database().db, database().dialect, undefined, undefined, { exclusive });
      expect(await outOfStep()).toEqual([]);
      expect((await listed('search=saltmarrow')).length).toBe(1);
      if (postgres()) {
        const { rows } = await sql<{ name: string }>`select indexname as name from pg_indexes
          where schemaname = current_schema() and tablename like 'server_search_vectors%'
            and indexdef like '%gin (document)%'`.execute(database().db);
        // The parent's and each of the eight partitions'.
        expect(rows).toHaveLength(9);
      }
    }
  });

  it('copies, once applied, the documents written before it; undone, it drops the copies', async () => {
    const migration = migrationFor(t, serverSearchVectors);
    const exists = async () => {
      if (!postgres()) return false;
      const { rows } = await sql<{ name: string | null }>`
        select to_regclass('server_search_vectors')::text as name`.execute(database().db);
      return rows[0]!.name !== null;
    };
    expect(await exists()).toBe(postgres());
    await migration.down!(database().db as never);
    expect(await exists()).toBe(false);
    // Written while the copies are gone (nothing reads search meanwhile).
    const early = await createApprovedServer(t.app, owner, moderator, { name: 'Gullwing Rookery' });
    await migration.up(database().db as never);
    expect(await exists()).toBe(postgres());
    expect(await outOfStep()).toEqual([]);
    expect(await listed('search=gullwing')).toEqual([early.id]);
    const later = await createApprovedServer(t.app, owner, moderator, { name: 'Gullwing Cliffs' });
    expect(await outOfStep()).toEqual([]);
    expect(await listed('search=gullwing')).toEqual([early.id, later.id].sort());
  });
});
