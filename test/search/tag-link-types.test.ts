// Tag links carry their resource's type (migration 0029), so that a tag filter with a type reads only that type's
// links. The copy must hold for every link, whichever way it was written, and for the links that existed before
// the migration; the filter must give what the tags and the type say.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { buildTestApp } from '../helpers/app.js';
import { migrationFor } from '../helpers/migrations.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { createResource, moderate, readCatalogs } from '../resources/helpers.js';
import { tagLinkTypes } from '../../src/core/db/migrations/0029_tag_link_types.js';

let t: TestApp;
let author: TestUser;
let moderator: TestUser;
const made: Record<string, string> = {};

beforeAll(async () => {
  t = await buildTestApp();
  [author, moderator] = await Promise.all([createUser(t.app), createUser(t.app, { role: 'MODERATOR' })]);
  const { tags } = await readCatalogs(t.app);
  const tag = (slug: string) => tags.find((candidate) => candidate.slug === slug)!.id;
  const add = async (name: string, type: string, tagSlugs: string[]) => {
    const resource = await createResource(t.app, author, { name, type, tagIds: tagSlugs.map(tag) });
    await moderate(t.app, moderator, resource.id, 'APPROVE');
    made[name] = resource.id;
  };
  await add('Combat Mod', 'MOD', ['combat']);
  await add('Horror Mod', 'MOD', ['horror']);
  await add('Combat World', 'WORLD', ['combat', 'horror']);
  await add('Untagged Plugin', 'PLUGIN', []);
  // Links added by an edit, not at creation.
  const edited = await t.app.inject({
    method: 'PATCH',
    url: `/resources/${made['Untagged Plugin']}`,
    headers: author.headers,
    payload: { tagIds: [tag('combat')] },
  });
  expect(edited.statusCode, edited.body).toBe(200);
}, 60_000);
afterAll(async () => t.close());

/** Each tag link with its own type and its resource's. */
async function linkTypes() {
  const { db } = t.app.context.database;
  const { rows } = await sql<{ linked: string | null; actual: string }>`
    select l.resource_type as linked, r.type as actual
    from resource_tag_links l join resources r on r.id = l.resource_id`.execute(db);
  return rows;
}

const names = async (query: string) => {
  const response = await t.app.inject({ method: 'GET', url: `/resources?${query}&limit=100` });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { resources: Array<{ name: string }> }).resources.map((r) => r.name).sort();
};

describe('tag links and their resource type', () => {
  it('carry the type of their resource, written at creation or by an edit', async () => {
    const rows = await linkTypes();
    expect(rows).toHaveLength(5);
    for (const row of rows) expect(row.linked).toBe(row.actual);
  });

  it('filter tags within a type', async () => {
    expect(await names('tags=combat&type=MOD')).toEqual(['Combat Mod']);
    expect(await names('tags=combat,horror&type=MOD')).toEqual(['Combat Mod', 'Horror Mod']);
    expect(await names('tags=combat&type=PLUGIN')).toEqual(['Untagged Plugin']);
    expect(await names('tags=horror&type=WORLD&search=world')).toEqual(['Combat World']);
    expect(await names('tags=horror&type=PLUGIN')).toEqual([]);
  });

  it('get their type when the migration runs on links written before it', async () => {
    const { db } = t.app.context.database;
    const migration = migrationFor(t, tagLinkTypes);
    await migration.down!(db as never);
    await migration.up(db as never);
    const rows = await linkTypes();
    expect(rows).toHaveLength(5);
    for (const row of rows) expect(row.linked).toBe(row.actual);
    t.clock.advance(5001);
    expect(await names('tags=combat&type=MOD')).toEqual(['Combat Mod']);
  });
});
