// PostgreSQL's planner must read search documents through their GIN index (search/index-plans.ts): a scan that
// tests each row costs a TOASTed document read per row, which its estimate leaves out. On this test's few rows a
// scan is what the planner would pick; under withIndexPlans the count and the facet keys' read take the index.
// The setting never outlives the statements it was made for (outside a transaction they run on a pool whose
// connections start with it), and every statement of a search request that reads the documents (counts, tiers,
// facets, pages of every plan) runs under it.
import { Kysely, PostgresDialect, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexPlanDatabase, registerIndexPlanDatabase } from '../../src/core/db/index-plan-pool.js';
import type { DB } from '../../src/core/db/schema.js';
import { withIndexPlans, withIndexPlansIf } from '../../src/modules/search/index-plans.js';
import { facetCountsStatement } from '../../src/modules/search/resource-facet-codes.js';
import { countedDocuments } from '../../src/modules/search/resource-match.js';
import type { SearchMatch } from '../../src/modules/search/resource-match.js';
import { parseSearch } from '../../src/modules/search/text.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import { createResource, moderate, readCatalogs } from '../resources/helpers.js';
import { statementsOf } from './statements.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const database = () => t.app.context.database;
const match = (search: string): SearchMatch => ({ query: parseSearch(search)! });
const setting = async (db: Kysely<DB>, name: string) =>
  (await sql<{ value: string }>`select current_setting(${name}) as value`.execute(db)).rows[0]!.value;
const seqScan = async (db: Kysely<DB>) =>
  (await sql<{ value: string }>`select current_setting('enable_seqscan') as value`.execute(db)).rows[0]!
    .value;

describe('withIndexPlans', () => {
  it('PostgreSQL: a capped count and the facet counts of a search read the documents through GIN', async () => {
    const { db, dialect } = database();
    if (dialect !== 'postgres') return;
    for (const statement of [
      countedDocuments(dialect, match('epic tre'), 10_001),
      facetCountsStatement(match('dragon'), 2_000),
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
    // JIT goes off with it: a disabled node's cost would pass every JIT threshold.
    const jit = await setting(db, 'jit');
    expect(await withIndexPlans(db, dialect, (read) => setting(read as Kysely<DB>, 'jit'))).toBe('off');
    expect(await setting(db, 'jit')).toBe(jit);
    await db.transaction().execute(async (trx) => {
      expect(await withIndexPlans(trx, dialect, (read) => seqScan(read as Kysely<DB>))).toBe('off');
      expect(await seqScan(trx)).toBe('on');
      // Put back when the read fails too; the transaction goes on (the failure was the caller's, not SQL's).
      const failed = withIndexPlans(trx, dialect, () => Promise.reject(new Error('read failed')));
      await expect(failed).rejects.toThrow('read failed');
      expect(await seqScan(trx)).toBe('on');
      expect(await setting(trx, 'jit')).toBe(jit);
    });
  });

  it('PostgreSQL: outside a transaction the read runs on the index-plan pool, whose connections start so', async () => {
    const { db, dialect, pool, indexPlanPool } = database();
    if (dialect !== 'postgres') return;
    // No transaction around it (one round trip a statement): the pool's connections were set when they opened.
    const planned = await withIndexPlans(db, dialect, (read) => Promise.resolve(read));
    expect(planned).toBe(await indexPlanDatabase(db));
    expect(planned.isTransaction).toBe(false);
    const shown = async (target: typeof pool) =>
      (
        await target!.query<{ seqscan: string; jit: string }>(
          `select current_setting('enable_seqscan') as seqscan, current_setting('jit') as jit`,
        )
      ).rows[0];
    expect(await shown(indexPlanPool)).toEqual({ seqscan: 'off', jit: 'off' });
    // Every other statement plans as the server's settings say.
    expect((await shown(pool))!.seqscan).toBe('on');
    expect(await seqScan(db)).toBe('on');
    // A transaction never hands its reads to another connection: they must see its own writes.
    await db.transaction().execute(async (trx) => {
      expect(await indexPlanDatabase(trx)).toBeUndefined();
      expect(await withIndexPlans(trx, dialect, (read) => Promise.resolve(read === trx))).toBe(true);
    });
  });

  it('PostgreSQL: where the server dropped the pool’s settings (a pooler), each read sets them for itself', async () => {
    const { dialect, pool } = database();
    if (dialect !== 'postgres') return;
    // A database whose index-plan connections started without the settings, as behind PgBouncer with
    // `ignore_startup_parameters = options`: here, the main pool's own (not destroyed: the app owns the pool).
    const plain = new Kysely<DB>({ dialect: new PostgresDialect({ pool: pool! }) });
    registerIndexPlanDatabase(plain, plain);
    expect(await indexPlanDatabase(plain)).toBeUndefined();
    const read = await withIndexPlans(plain, dialect, async (trx) => ({
      seqscan: await seqScan(trx as Kysely<DB>),
      inTransaction: trx.isTransaction,
    }));
    expect(read).toEqual({ seqscan: 'off', inTransaction: true });
    expect(await seqScan(plain)).toBe('on');
  });

  it('withIndexPlansIf: a read that matches nothing runs as it is, on the executor it was given', async () => {
    const { db, dialect } = database();
    expect(await withIndexPlansIf(false, db, dialect, (read) => Promise.resolve(read === db))).toBe(true);
    if (dialect !== 'postgres') return;
    expect(await withIndexPlansIf(false, db, dialect, (read) => seqScan(read as Kysely<DB>))).toBe('on');
    expect(await withIndexPlansIf(true, db, dialect, (read) => seqScan(read as Kysely<DB>))).toBe('off');
  });

  it('SQLite: the read runs as it is, on the executor it was given', async () => {
    const { db, dialect } = database();
    if (dialect !== 'sqlite') return;
    expect(await withIndexPlans(db, dialect, (read) => Promise.resolve(read === db))).toBe(true);
  });
});

describe('requests that search', () => {
  it('PostgreSQL: read the documents only with sequential scans off, whatever the plan', async () => {
    const { dialect } = database();
    if (dialect !== 'postgres') return;
    const [owner, moderator] = await Promise.all([
      createUser(t.app),
      createUser(t.app, { role: 'MODERATOR' }),
    ]);
    const catalogs = await readCatalogs(t.app);
    const tag = catalogs.tags[0]!;
    const category = catalogs.categories.find((candidate) => candidate.resourceType === 'MOD')!;
    const version = catalogs.gameVersions[0]!;
    const links = { tagIds: [tag.id], categoryIds: [category.id], gameVersionIds: [version.id] };
    for (const name of ['Amber Grove', 'Amber Fields', 'Grove Keeper', 'Amber Grove Keeper']) {
      const created = await createResource(t.app, owner, { name, ...links });
      await moderate(t.app, moderator, created.id, 'APPROVE');
    }
    const urls = [
      '/resources?search=amber',
      '/resources?search=amb',
      '/resources?search=amber grove&sortBy=relevance',
      '/resources?search=amber grove keeper&sortBy=relevance',
      '/resources?search=ambr&sortBy=relevance',
      '/resources?search=grove&sortBy=downloads&type=MOD',
      `/resources?search=amber&tags=${tag.slug}&facets=tags,type`,
      `/resources?tags=${tag.slug}&facets=tags,type`,
      `/resources?search=grove&tags=${tag.slug}&sortBy=name&page=2&limit=1`,
      '/resources?search=nothingmatchesthis',
      `/resources?search=amber&categories=${category.slug}&type=MOD&facets=categories,gameVersions`,
      `/resources?search=grove&versions=${encodeURIComponent(version.name)}&sortBy=relevance&facets=tags`,
      `/resources?categories=${category.slug}&versions=${encodeURIComponent(version.name)}&facets=type`,
    ];
    const statements = await statementsOf(async () => {
      for (const url of urls) {
        const response = await t.app.inject({ method: 'GET', url: encodeURI(url) });
        expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
      }
    });
    const reads = statements.filter((statement) => statement.text.includes('resource_search_vectors'));
    expect(reads.length).toBeGreaterThan(urls.length);
    expect(reads.filter((statement) => !statement.seqScanOff).map((statement) => statement.text)).toEqual([]);
  });
});
