// SQLite's index of the search documents' names by doc id (migration 0044): the relevance tiers that test the
// names of documents whose ids they already have read the names from it alone, not the documents' wide rows
// (search/resource-match.ts matchingDocuments). Their answers are checked against brute force in
// cut-prefixes.test.ts and relevance-classes.test.ts; here, that the plan reads the index and that the
// migration comes and goes. PostgreSQL reads those tiers from the names' vectors: 0044 leaves it as it was.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompiledQuery, sql } from 'kysely';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { migrationFor } from '../helpers/migrations.js';
import { resourceSearchNames } from '../../src/core/db/migrations/0044_resource_search_names.js';
import { matchingDocuments, nameTiers } from '../../src/modules/search/resource-match.js';
import { parseSearch } from '../../src/modules/search/text.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const indexDefinition = async () => {
  const { db, dialect } = t.app.context.database;
  const rows =
    dialect === 'postgres'
      ? await sql<{ sql: string }>`select indexdef as sql from pg_indexes
          where indexname = 'resource_search_doc_name_idx' and schemaname = current_schema()`.execute(db)
      : await sql<{
          sql: string;
        }>`select sql from sqlite_master where name = 'resource_search_doc_name_idx'`.execute(db);
  return rows.rows[0]?.sql;
};

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

describe('the names index (0044)', () => {
  it('is read alone by the tiers of any and two words in the name among listed documents (SQLite), and comes and goes', async () => {
    const { db, dialect } = t.app.context.database;
    const migration = migrationFor(t, resourceSearchNames);
    if (dialect === 'postgres') {
      expect(await indexDefinition()).toBeUndefined();
      await migration.down(db as never);
      await migration.up(db as never);
      expect(await indexDefinition()).toBeUndefined();
      return;
    }
    expect(await indexDefinition()).toMatch(/on resource_search \(doc_id, name_text\)/);
    // Both tiers, the last word whole or still typed, test the listed documents' names in the index alone.
    for (const search of ['amber reef lanternfish ', 'amber reef lanternfish']) {
      for (const plan of await planOfListedTiers(search)) {
        expect(plan, search).toContain('USING COVERING INDEX resource_search_doc_name_idx');
        expect(plan, search).not.toMatch(/_fts/);
      }
    }
    await migration.down(db as never);
    expect(await indexDefinition()).toBeUndefined();
    await migration.up(db as never);
    expect(await indexDefinition()).toMatch(/on resource_search \(doc_id, name_text\)/);
    expect((await planOfListedTiers('amber reef lanternfish '))[1]).toContain(
      'USING COVERING INDEX resource_search_doc_name_idx',
    );
  });
});
