// The tags and categories attached to servers, and the usage counters they move. `usage_count` counts the
// APPROVED servers carrying a tag or category (what the public can find with it), so it moves when links of an
// approved server change and when a server enters or leaves APPROVED, always in the caller's transaction.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../../core/db/schema.js';

type Executor = Kysely<DB> | Transaction<DB>;

export type CatalogKind = 'tag' | 'category';

const TABLES = {
  tag: { catalog: 'server_tags', links: 'server_tag_links', column: 'tag_id' },
  category: { catalog: 'server_categories', links: 'server_category_links', column: 'category_id' },
} as const;

/** The ids among `ids` that exist in the catalog. */
export async function existingIds(
  db: Executor,
  kind: CatalogKind,
  ids: readonly string[],
): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom(TABLES[kind].catalog).select('id').where('id', 'in', ids).execute();
  return rows.map((row) => row.id);
}

export async function linkedIds(db: Executor, kind: CatalogKind, serverId: string): Promise<string[]> {
  if (kind === 'tag') {
    const rows = await db
      .selectFrom('server_tag_links')
      .select('tag_id')
      .where('server_id', '=', serverId)
      .execute();
    return rows.map((row) => row.tag_id);
  }
  const rows = await db
    .selectFrom('server_category_links')
    .select('category_id')
    .where('server_id', '=', serverId)
    .execute();
  return rows.map((row) => row.category_id);
}

export async function addLinks(db: Executor, kind: CatalogKind, serverId: string, ids: readonly string[]) {
  if (ids.length === 0) return;
  if (kind === 'tag') {
    await db
      .insertInto('server_tag_links')
      .values(ids.map((id) => ({ server_id: serverId, tag_id: id })))
      .execute();
  } else {
    await db
      .insertInto('server_category_links')
      .values(ids.map((id) => ({ server_id: serverId, category_id: id })))
      .execute();
  }
}

export async function removeLinks(db: Executor, kind: CatalogKind, serverId: string, ids: readonly string[]) {
  if (ids.length === 0) return;
  if (kind === 'tag') {
    await db
      .deleteFrom('server_tag_links')
      .where('server_id', '=', serverId)
      .where('tag_id', 'in', ids)
      .execute();
  } else {
    await db
      .deleteFrom('server_category_links')
      .where('server_id', '=', serverId)
      .where('category_id', 'in', ids)
      .execute();
  }
}

export async function moveUsage(db: Executor, kind: CatalogKind, ids: readonly string[], delta: 1 | -1) {
  if (ids.length === 0) return;
  await db
    .updateTable(TABLES[kind].catalog)
    .set((eb) => ({ usage_count: eb('usage_count', '+', delta) }))
    .where('id', 'in', ids)
    .execute();
}

/** Moves the usage of every tag and category of one server: it entered (+1) or left (-1) APPROVED. */
export async function moveUsageOfServer(db: Executor, serverId: string, delta: 1 | -1): Promise<void> {
  await db
    .updateTable('server_tags')
    .set((eb) => ({ usage_count: eb('usage_count', '+', delta) }))
    .where('id', 'in', (eb) =>
      eb.selectFrom('server_tag_links').select('tag_id').where('server_id', '=', serverId),
    )
    .execute();
  await db
    .updateTable('server_categories')
    .set((eb) => ({ usage_count: eb('usage_count', '+', delta) }))
    .where('id', 'in', (eb) =>
      eb.selectFrom('server_category_links').select('category_id').where('server_id', '=', serverId),
    )
    .execute();
}
