// Relevance's top tier reads the popularity index (migration 0028) only if the index's expression is the one the
// queries order by: both dialects use an expression index for the identical expression alone, and otherwise
// sort every match. The plan of the order the service builds (search/resource-match.ts popularity) must read
// the index in order, with no sort step.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompiledQuery, sql } from 'kysely';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { popularity } from '../../src/modules/search/resource-match.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

/** The plan's lines for a page of APPROVED resources by popularity, as listByPopularity orders them. */
async function planOfPopularityPage(): Promise<string[]> {
  const { db, dialect } = t.app.context.database;
  const page = db
    .selectFrom('resources')
    .select('resources.id')
    .where('resources.status', '=', 'APPROVED')
    .orderBy(popularity(dialect), 'desc')
    .orderBy('resources.id', 'desc')
    .limit(20)
    .compile();
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
});
