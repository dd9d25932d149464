// PostgreSQL's planner must read search documents through their GIN index (search/index-plans.ts): a scan that
// tests each row costs a TOASTed document read per row, which its estimate leaves out. On this test's few rows a
// scan is what the planner would pick; under withIndexPlans the count and the facet keys' read take the index.
// The setting never outlives the statements it was made for.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../../src/core/db/schema.js';
import { withIndexPlans } from '../../src/modules/search/index-plans.js';
import { countedDocuments, matchingFacetKeys } from '../../src/modules/search/resource-match.js';
import type { SearchMatch } from '../../src/modules/search/resource-match.js';
import { parseSearch } from '../../src/modules/search/text.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const database = () => t.app.context.database;
const match = (search: string): SearchMatch => ({ query: parseSearch(search)! });
const seqScan = async (db: Kysely<DB>) =>
  (await sql<{ value: string }>`select current_setting('enable_seqscan') as value`.execute(db)).rows[0]!
    .value;

describe('withIndexPlans', () => {
  it('PostgreSQL: a capped count and the facet keys of a search read the documents through GIN', async () => {
    const { db, dialect } = database();
    if (dialect !== 'postgres') return;
    for (const statement of [
      countedDocuments(dialect, match('epic tre'), 10_001),
      matchingFacetKeys(dialect, match('dragon'), 2_001),
    ]) {
      const plan = await withIndexPlans(db, dialect, (read) =>
        sql<{ 'QUERY PLAN': string }>`explain ${statement}`.execute(read),
      );
      const lines = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
      // (The documents' index of each partition of resource_search_vectors, migration 0034.)
      expect(lines).toMatch(/Bitmap Index Scan on resource_search_vectors_\d+_document_idx/);
      expect(lines).not.toContain('Seq Scan on resource_search');
    }
  });

  it('PostgreSQL: the setting holds for the read alone, in its own transaction or in the caller’s', async () => {
    const { db, dialect } = database();
    if (dialect !== 'postgres') return;
    expect(await withIndexPlans(db, dialect, (read) => seqScan(read as Kysely<DB>))).toBe('off');
    await db.transaction().execute(async (trx) => {
      expect(await withIndexPlans(trx, dialect, (read) => seqScan(read as Kysely<DB>))).toBe('off');
      expect(await seqScan(trx)).toBe('on');
      // Put back when the read fails too; the transaction goes on (the failure was the caller's, not SQL's).
      const failed = withIndexPlans(trx, dialect, () => Promise.reject(new Error('read failed')));
      await expect(failed).rejects.toThrow('read failed');
      expect(await seqScan(trx)).toBe('on');
    });
  });

  it('SQLite: the read runs as it is, on the executor it was given', async () => {
    const { db, dialect } = database();
    if (dialect !== 'sqlite') return;
    expect(await withIndexPlans(db, dialect, (read) => Promise.resolve(read === db))).toBe(true);
  });
});
