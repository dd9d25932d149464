import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
import { moveCounter, readCounterSum } from '../../core/db/counters.js';
import type { DialectName } from '../../core/db/database.js';
import { containsInsensitive } from '../../core/db/dialect.js';
import { prepared } from '../../core/db/prepared.js';
import { countTagsMatchingIn, findTagIn, listTagsIn } from './tag-tables.repo.js';
import type { DB, ResourceTagsTable, ResourceType } from '../../core/db/schema.js';

export type ResourceTagRow = Selectable<ResourceTagsTable>;
type Executor = Kysely<DB> | Transaction<DB>;

/** The `counters` row holding the number of tags (GET /resource-tags `total` without a search). */
export const TAG_TOTAL = 'resource_tags';

export const findTag = (db: Executor, by: { id: string } | { slug: string }) =>
  findTagIn(db, 'resource_tags', by) as Promise<ResourceTagRow | undefined>;

export const listTags = (
  db: Executor,
  dialect: DialectName,
  search: string | undefined,
  limit: number,
  offset: number,
): Promise<ResourceTagRow[]> =>
  listTagsIn(db, dialect, 'resource_tags', search, limit, offset) as Promise<ResourceTagRow[]>;

export type ResourceTagPageRow = ResourceTagRow & { total: number | string | null };

/**
 * The unfiltered page (GET /resource-tags without search, the public catalog read) with the tag total beside each
 * row: one prepared statement, one round trip, instead of the list and the counter read apart.
 */
const pageWithTotal = prepared<ResourceTagPageRow, [number, number]>(2, (db, _dialect, limit, offset) =>
  db
    .selectFrom('resource_tags')
    .selectAll('resource_tags')
    .select((eb) =>
      eb.selectFrom('counters').select('counters.value').where('counters.name', '=', TAG_TOTAL).as('total'),
    )
    .orderBy('name')
    .orderBy('id')
    .limit(limit as unknown as number)
    .offset(offset as unknown as number),
);

/** The unfiltered page and the total; a page past the end reads the total on its own. */
export async function listTagPage(
  db: Kysely<DB>,
  dialect: DialectName,
  limit: number,
  offset: number,
): Promise<{ rows: ResourceTagRow[]; total: number }> {
  const rows = await pageWithTotal(db, dialect, limit, offset);
  const total = rows.length === 0 ? await readTagTotal(db) : Number(rows[0]!.total ?? 0);
  return { rows, total };
}

export const countTagsMatching = (db: Executor, dialect: DialectName, search: string) =>
  countTagsMatchingIn(db, dialect, 'resource_tags', search);

/** Autocomplete: name or slug contains q; the most used first. */
export function searchTags(db: Executor, dialect: DialectName, q: string, limit: number) {
  return db
    .selectFrom('resource_tags')
    .select(['id', 'name', 'slug', 'usage_count'])
    .where((eb) =>
      eb.or([
        containsInsensitive(dialect, eb.ref('name'), q),
        containsInsensitive(dialect, eb.ref('slug'), q),
      ]),
    )
    .orderBy('usage_count', 'desc')
    .orderBy('name')
    .limit(limit)
    .execute();
}

/** The tags most used by resources of one type (tags no resource of the type uses are left out). */
export function popularTags(db: Executor, type: ResourceType, limit: number) {
  return db
    .selectFrom('resource_tag_type_usage as u')
    .innerJoin('resource_tags as t', 't.id', 'u.tag_id')
    .select(['t.id', 't.name', 't.slug', 't.description', 't.created_at', 'u.usage_count'])
    .where('u.resource_type', '=', type)
    .where('u.usage_count', '>', 0)
    .orderBy('u.usage_count', 'desc')
    .orderBy('t.name')
    .limit(limit)
    .execute();
}

export async function slugTaken(db: Executor, slug: string, exceptId?: string): Promise<boolean> {
  let query = db.selectFrom('resource_tags').select('id').where('slug', '=', slug);
  if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

export async function insertTag(db: Executor, row: Insertable<ResourceTagsTable>): Promise<void> {
  await db.insertInto('resource_tags').values(row).execute();
}

export async function updateTag(db: Executor, id: string, patch: Updateable<ResourceTagsTable>) {
  const result = await db.updateTable('resource_tags').set(patch).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * PostgreSQL: row locks on the resources carrying the tag, in id order, before its removal deletes their links.
 * A resource's own writes (a download, a like, an edit) lock its row, then its tag links (migration 0046's
 * trigger); the removal deleted the links, then rewrote the rows' catalog names, and the two orders deadlocked.
 * SQLite runs one write at a time.
 */
export async function lockResourcesTagged(db: Executor, dialect: DialectName, id: string): Promise<void> {
  if (dialect !== 'postgres') return;
  await db
    .selectFrom('resources')
    .select('resources.id')
    .where('resources.id', 'in', (eb) =>
      eb.selectFrom('resource_tag_links').select('resource_id').where('tag_id', '=', id),
    )
    .orderBy('resources.id')
    .forUpdate()
    .execute();
}

/** Links and per-type usage rows go with it (ON DELETE CASCADE). */
export async function deleteTag(db: Executor, id: string): Promise<boolean> {
  const result = await db.deleteFrom('resource_tags').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function readTagTotal(db: Executor): Promise<number> {
  return readCounterSum(db, [TAG_TOTAL]);
}

export async function moveTagTotal(db: Executor, delta: 1 | -1): Promise<void> {
  await moveCounter(db, TAG_TOTAL, delta);
}
