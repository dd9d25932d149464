// PostgreSQL's search indexes take new entries into pending lists that every search reads whole; a job merges
// them every few seconds (search/pending-entries.ts). The test would fail if writes stopped leaving entries
// pending (the premise), if the job merged nothing or only some indexes, or if a merge lost a document.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  mergePendingEntries,
  PENDING_MERGE_INTERVAL_MS,
  PENDING_MERGE_JOB,
} from '../../src/modules/search/pending-entries.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { createResource, moderate } from '../resources/helpers.js';

let t: TestApp;
let author: TestUser;
let moderator: TestUser;
beforeAll(async () => {
  t = await buildTestApp();
  [author, moderator] = await Promise.all([createUser(t.app), createUser(t.app, { role: 'MODERATOR' })]);
});
afterAll(async () => t.close());

const database = () => t.app.context.database;
const merge = () => mergePendingEntries(database().db);

/** Approved resources named after `word`: their documents enter every resource search index. */
async function approved(word: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const resource = await createResource(t.app, author, {
      name: `${word} lantern ${i}`,
      description: `A ${word} of many words about lanterns, caves and the ${word} light.`,
    });
    await moderate(t.app, moderator, resource.id, 'APPROVE');
    ids.push(resource.id);
  }
  return ids;
}

async function searchIds(search: string): Promise<string[]> {
  const response = await t.app.inject({ url: `/resources?search=${encodeURIComponent(search)}&limit=50` });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { resources: Array<{ id: string }> }).resources.map((r) => r.id).sort();
}

describe('pending entries of the search indexes', () => {
  it('the job runs on PostgreSQL alone (SQLite’s FTS5 merges its segments as it writes)', () => {
    if (database().dialect === 'postgres') {
      expect(t.app.context.scheduler.jobs()).toContain(PENDING_MERGE_JOB);
      return;
    }
    expect(t.app.context.scheduler.jobs()).not.toContain(PENDING_MERGE_JOB);
  });

  it('writes leave entries pending (PostgreSQL); merged, every document is found as before', async () => {
    const postgres = database().dialect === 'postgres';
    if (postgres) await merge();
    const ids = await approved('quartzite', 3);
    if (postgres) {
      // The premise: the new documents' entries wait in the indexes' pending lists; one merge takes them all.
      expect(await merge()).toBeGreaterThan(0);
      expect(await merge()).toBe(0);
    }
    expect(await searchIds('quartzite')).toEqual([...ids].sort());
    expect(await searchIds('lantern quartz')).toEqual([...ids].sort());
  });

  it('the job merges what creations and edits left (PostgreSQL); searches find the new text', async () => {
    const postgres = database().dialect === 'postgres';
    expect(PENDING_MERGE_INTERVAL_MS).toBeLessThanOrEqual(60_000);
    const ids = await approved('basaltine', 2);
    // An edit of an approved resource's text writes its document again.
    const edited = await t.app.inject({
      method: 'PATCH',
      url: `/resources/${ids[0]}`,
      headers: author.headers,
      payload: { shortDescription: 'basaltine obsidian glow' },
    });
    expect(edited.statusCode, edited.body).toBe(200);
    if (postgres) {
      expect(await t.app.context.scheduler.runNow(PENDING_MERGE_JOB)).toBe(true);
      expect(await merge()).toBe(0);
    }
    expect(await searchIds('obsidian basaltine')).toEqual([ids[0]]);
    expect(await searchIds('basaltine')).toEqual([...ids].sort());
  });

  it('merges the indexes of its own schema only (PostgreSQL; another app may share the database)', async () => {
    const { db, dialect } = database();
    if (dialect !== 'postgres') {
      expect(t.app.context.scheduler.jobs()).not.toContain(PENDING_MERGE_JOB);
      return;
    }
    const other = `pending_other_${process.pid}`;
    await sql`create schema ${sql.id(other)}`.execute(db);
    try {
      await sql`create table ${sql.id(other, 'docs')} (body tsvector not null)`.execute(db);
      await sql`create index other_docs_idx on ${sql.id(other, 'docs')} using gin (body)`.execute(db);
      await sql`insert into ${sql.id(other, 'docs')} values (to_tsvector('simple', 'granite lantern'))`.execute(
        db,
      );
      await merge();
      // The other schema's index keeps its pending entries: merging them is that schema's own business.
      const { rows } = await sql<{ pages: number }>`
        select gin_clean_pending_list(${`${other}.other_docs_idx`}::regclass) as pages`.execute(db);
      expect(Number(rows[0]!.pages)).toBeGreaterThan(0);
    } finally {
      await sql`drop schema ${sql.id(other)} cascade`.execute(db);
    }
  });
});
