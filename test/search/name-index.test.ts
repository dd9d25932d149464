// SQLite's indexes of the search documents' names (migration 0044): by doc id, for the relevance tiers that test
// the names of documents whose ids they already hold; by resource id, for the top tier walked along a sort index
// testing each row's name. Both read the names alone, not the documents' wide rows (search/resource-match.ts).
// Their answers are checked against brute force in cut-prefixes.test.ts and relevance-classes.test.ts; here,
// that the plans read the indexes and that the migration comes and goes. PostgreSQL reads those tiers from the
// names' vectors: 0044 leaves it as it was.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompiledQuery, sql } from 'kysely';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { migrationFor } from '../helpers/migrations.js';
import { resourceSearchNames } from '../../src/core/db/migrations/0044_resource_search_names.js';
import {
  matchCondition,
  matchingDocuments,
  nameTiers,
  topTier,
} from '../../src/modules/search/resource-match.js';
import { parseSearch } from '../../src/modules/search/text.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const INDEXES = ['resource_search_doc_name_idx', 'resource_search_resource_name_idx'];

/** The definitions of both indexes (undefined where there is none). */
const indexDefinitions = async () => {
  const { db, dialect } = t.app.context.database;
  const rows =
    dialect === 'postgres'
      ? await sql<{ name: string; sql: string }>`select indexname as name, indexdef as sql from pg_indexes
          where indexname in (${sql.join(INDEXES)}) and schemaname = current_schema()`.execute(db)
      : await sql<{ name: string; sql: string }>`select name, sql from sqlite_master
          where name in (${sql.join(INDEXES)})`.execute(db);
  return INDEXES.map((name) => rows.rows.find((row) => row.name === name)?.sql);
};
const DEFINED = [/on resource_search \(doc_id, name_text\)/, /on resource_search \(resource_id, name_text\)/];

/** The plan of a top tier's page walked by popularity, each row's name tested (MatchPlan 'scan'). */
async function planOfScannedTopTier(): Promise<string> {
  const { db } = t.app.context.database;
  const condition = matchCondition('sqlite', topTier({ query: parseSearch('amber')! }), 'scan');
  const compiled = sql`select resources.id from resources where resources.status = 'APPROVED' and ${condition}
    order by resources.downloads desc limit 20`.compile(db);
  const rows = await db.executeQuery<{ detail: string }>(
    CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]),
  );
  return rows.rows.map((row) => row.detail).join('; ');
}

/** The plans of the statements reading a three-word search's name tiers among listed documents (ids 1, 2, 3). */
async function planOfListedTiers(search: string): Promise<string[]> {
  const { db } = t.app.context.database;
  const details: string[] = [];
  const tiers = nameTiers({ query: parseSearch(search)!, documents: '[1, 2, 3]' });
  expect(tiers.map((tier) => [tier.inName, tier.searched])).toEqual([
    ['two', '[1, 2, 3]'],
    ['any', '[1, 2, 3]'],
  ]);
  for (const tier of tiers) {
    const compiled = sql`${matchingDocuments('sqlite', tier)}`.compile(db);
    const rows = await db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]),
    );
    details.push(rows.rows.map((row) => row.detail).join('; '));
  }
  return details;
}

describe('the names indexes (0044)', () => {
  it('are read alone by the name tiers among listed documents and the top tier walked (SQLite), and come and go', async () => {
    const { db, dialect } = t.app.context.database;
    const migration = migrationFor(t, resourceSearchNames);
    if (dialect === 'postgres') {
      expect(await indexDefinitions()).toEqual([undefined, undefined]);
      await migration.down(db as never);
      await migration.up(db as never);
      expect(await indexDefinitions()).toEqual([undefined, undefined]);
      return;
    }
    const expectDefined = async () => {
      const definitions = await indexDefinitions();
      DEFINED.forEach((pattern, i) => expect(definitions[i]).toMatch(pattern));
    };
    await expectDefined();
    // Both tiers, the last word whole or still typed, test the listed documents' names in the index alone.
    for (const search of ['amber reef lanternfish ', 'amber reef lanternfish']) {
      for (const plan of await planOfListedTiers(search)) {
        expect(plan, search).toContain('USING COVERING INDEX resource_search_doc_name_idx');
        expect(plan, search).not.toMatch(/_fts/);
      }
    }
    expect(await planOfScannedTopTier()).toContain('USING COVERING INDEX resource_search_resource_name_idx');
    await migration.down(db as never);
    expect(await indexDefinitions()).toEqual([undefined, undefined]);
    await migration.up(db as never);
    await expectDefined();
    expect((await planOfListedTiers('amber reef lanternfish '))[1]).toContain(
      'USING COVERING INDEX resource_search_doc_name_idx',
    );
    expect(await planOfScannedTopTier()).toContain('USING COVERING INDEX resource_search_resource_name_idx');
  });
});
