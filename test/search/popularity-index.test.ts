// Relevance's top tier reads the popularity index (migration 0028) only if the index's expression is the one the
// queries order by: both dialects use an expression index for the identical expression alone, and otherwise
// sort every match. The plan of the order the service builds (search/resource-match.ts popularity) must read
// the index in order, with no sort step. On PostgreSQL (migration 0042) the index also carries the expression's
// columns, so that a walk testing rows against listed ids (MatchPlan 'hashed') reads the index alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompiledQuery, sql } from 'kysely';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { popularityIndexOnly } from '../../src/core/db/migrations/0042_popularity_index_only.js';
import { popularity } from '../../src/modules/search/document-text.js';
import { migrationFor } from '../helpers/migrations.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

/**
 * The plan's lines for a page of APPROVED resources by popularity, as listByPopularity orders them; `listed`: of
 * the ids a listed top tier holds, tested as matchCondition's 'hashed' plan tests them on PostgreSQL.
 */
async function planOfPopularityPage(listed = false): Promise<string[]> {
  const { db, dialect } = t.app.context.database;
  let ids = db.selectFrom('resources').select('resources.id').where('resources.status', '=', 'APPROVED');
  if (listed)
    ids = ids.where(
      sql<boolean>`(resources.id in (select json_array_elements_text(${'["a", "b"]'}::json))) is true`,
    );
  const page = ids.orderBy(popularity(dialect), 'desc').orderBy('resources.id', 'desc').limit(20).compile();
  if (dialect === 'sqlite') {
    const rows = await db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${page.sql}`, [...page.parameters]),
    );
    return rows.rows.map((row) => row.detail);
  }
  // An empty table: the planner would rather sort it. Forbid sorting and whole-table scans, so the plan can
  // only be the index, if the index answers this order at all.
  return db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    await sql`set local enable_sort = off`.execute(trx);
    const rows = await trx.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`explain ${page.sql}`, [...page.parameters]),
    );
    return rows.rows.map((row) => row['QUERY PLAN']);
  });
}

describe('the popularity index', () => {
  it('answers the relevance top tier order without sorting', async () => {
    const plan = (await planOfPopularityPage()).join('\n');
    expect(plan).toContain('resources_status_popularity_idx');
    expect(plan).not.toMatch(/TEMP B-TREE|Sort/);
  });

  it('carries its expression’s columns on PostgreSQL, walked index only by a listed tier (0042 down and up)', async () => {
    const { db, dialect } = t.app.context.database;
    const definition = async () =>
      dialect === 'postgres'
        ? (
            await sql<{ sql: string }>`select indexdef as sql from pg_indexes
              where indexname = 'resources_status_popularity_idx' and schemaname = current_schema()`.execute(
              db,
            )
          ).rows[0]!.sql
        : (
            await sql<{ sql: string }>`select sql from sqlite_master
              where name = 'resources_status_popularity_idx'`.execute(db)
          ).rows[0]!.sql;
    const indexOnly = async () => /Index Only Scan/.test((await planOfPopularityPage(true)).join('\n'));
    const before = await definition();
    const migration = migrationFor(t, popularityIndexOnly);
    if (dialect === 'postgres') {
      expect(before).toMatch(/INCLUDE \(downloads, like_count\)$/);
      expect(await indexOnly()).toBe(true);
      await migration.down(db as never);
      expect(await definition()).not.toMatch(/INCLUDE/);
      expect(await indexOnly()).toBe(false);
    } else {
      // SQLite reads its expression indexes alone already: 0042 leaves it as 0028 made it.
      await migration.down(db as never);
      expect(await definition()).toBe(before);
    }
    await migration.up(db as never);
    expect(await definition()).toBe(before);
    const plan = (await planOfPopularityPage()).join('\n');
    expect(plan).toContain('resources_status_popularity_idx');
    expect(plan).not.toMatch(/TEMP B-TREE|Sort/);
  });
});
