// The reads resource tags and server tags share: two tables with the same core columns
// (id, name, slug, description, usage_count, created_at).
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import { containsInsensitive } from '../../core/db/dialect.js';
import type { DB, ServerTagsTable } from '../../core/db/schema.js';

type Executor = Kysely<DB> | Transaction<DB>;
export type TagTable = 'resource_tags' | 'server_tags';
/** The columns both tables have. */
export type TagRow = Selectable<ServerTagsTable>;

// Kysely types a query over a union of table names poorly; both tables have every column used here.
const from = (db: Executor, table: TagTable) => db.selectFrom(table as 'server_tags');

export function findTagIn(db: Executor, table: TagTable, by: { id: string } | { slug: string }) {
  return from(db, table)
    .selectAll()
    .where('id' in by ? 'id' : 'slug', '=', 'id' in by ? by.id : by.slug)
    .executeTakeFirst();
}

/** Alphabetical, optionally filtered by a case-insensitive name search (wildcards literal). */
export function listTagsIn(
  db: Executor,
  dialect: DialectName,
  table: TagTable,
  search: string | undefined,
  limit: number,
  offset: number,
): Promise<TagRow[]> {
  let query = from(db, table).selectAll();
  if (search !== undefined) query = query.where((eb) => containsInsensitive(dialect, eb.ref('name'), search));
  return query.orderBy('name').orderBy('id').limit(limit).offset(offset).execute();
}

export async function countTagsMatchingIn(
  db: Executor,
  dialect: DialectName,
  table: TagTable,
  search: string,
): Promise<number> {
  const row = await from(db, table)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where((eb) => containsInsensitive(dialect, eb.ref('name'), search))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
