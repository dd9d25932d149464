// Introspection and migrations on PostgreSQL read the deployment's own schema only (src/core/db/pg-introspector.ts).
// Kysely's own introspector read every column of every schema and resolved each table by name: a table renamed or
// a schema dropped meanwhile by another deployment on the same database (in CI: another test file, renaming its
// team_members away) failed this one's migration with "relation … does not exist". That race cannot be timed from
// a test; what rules it out can: no statement of a migration run resolves another schema's tables.
// Runs only under `npm run test:pg` (see vitest.config.ts).
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/core/db/migrator.js';
import { buildTestApp, freshPostgresUrl } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';

const serverUrl = process.env['TEST_DATABASE_URL']!;

let t: TestApp;
let other: { url: string; drop: () => Promise<void> };

async function onOther(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: other.url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  t = await buildTestApp();
  // Another deployment's schema beside this one, holding a table of the same name as one of ours.
  other = await freshPostgresUrl(serverUrl);
  await onOther('create table users (id text primary key, elsewhere integer not null)');
  await onOther('create table only_elsewhere (id serial primary key)');
});
afterAll(async () => {
  await t.close();
  await other.drop();
});

describe('PostgreSQL introspection', () => {
  it("lists the current schema's tables only, with their columns", async () => {
    const { db } = t.app.context.database;
    const tables = await db.introspection.getTables();
    const [schema] = new Set(tables.map((table) => table.schema));
    expect(new Set(tables.map((table) => table.schema)).size).toBe(1);
    expect(other.url).not.toContain(`search_path=${schema}`);
    const names = tables.map((table) => table.name);
    expect(names).not.toContain('only_elsewhere');
    expect(names.filter((name) => name === 'users')).toHaveLength(1);
    expect(names).not.toContain('kysely_migration');
    const users = tables.find((table) => table.name === 'users')!;
    expect(users.isView).toBe(false);
    expect(users.columns.map((column) => column.name)).not.toContain('elsewhere');
    expect(users.columns.find((column) => column.name === 'id')).toMatchObject({
      dataType: 'text',
      isNullable: false,
      isAutoIncrementing: false,
    });
    // Partitioned tables are tables too (the search vectors' parent).
    expect(names).toContain('resource_search_vectors');
  });

  it("lists Kysely's own tables when asked, and marks serial columns", async () => {
    const { db } = t.app.context.database;
    await sql`create table introspected (id serial primary key, label text)`.execute(db);
    const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
    const names = tables.map((table) => table.name);
    expect(names).toEqual(expect.arrayContaining(['kysely_migration', 'kysely_migration_lock']));
    const introspected = tables.find((table) => table.name === 'introspected')!;
    expect(introspected.columns).toEqual([
      expect.objectContaining({
        name: 'id',
        dataType: 'int4',
        isAutoIncrementing: true,
        hasDefaultValue: true,
      }),
      expect.objectContaining({
        name: 'label',
        dataType: 'text',
        isAutoIncrementing: false,
        isNullable: true,
      }),
    ]);
  });

  it("a migration run resolves no other schema's table", async () => {
    const { db } = t.app.context.database;
    // Every statement the run sends, as pg receives it.
    const seen: string[] = [];
    const original = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
      if (text !== undefined) seen.push(text);
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof original;
    try {
      expect(await migrateToLatest(db, 'postgres')).toEqual([]);
    } finally {
      pg.Client.prototype.query = original;
    }
    const catalogReads = seen.filter((text) => /pg_attribute/.test(text));
    expect(catalogReads.length).toBeGreaterThan(0);
    for (const text of catalogReads) expect(text).toMatch(/nspname = current_schema\(\)/);
  });
});
