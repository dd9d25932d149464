// resources.catalog_refs: a resource's categories, tags and game versions as the API shows them, stored as JSON
// on the row so that reads (one resource, a page of 20) need no per-row joins or aggregates. Rewritten in the
// transaction of every change that could alter it: the resource's links, or a catalog entry's name, slug,
// order or existence.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../core/db/schema.js';

type Executor = Kysely<DB> | Transaction<DB>;

export interface CatalogRefJson {
  id: string;
  name: string;
  slug: string;
}

export interface GameVersionRefJson {
  id: string;
  name: string;
}

export interface CatalogRefs {
  /** In catalog order. */
  categories: CatalogRefJson[];
  /** By name. */
  tags: CatalogRefJson[];
  /** Newest first. */
  gameVersions: GameVersionRefJson[];
}

export const NO_CATALOG_REFS = JSON.stringify({
  categories: [],
  tags: [],
  gameVersions: [],
} satisfies CatalogRefs);

export const parseCatalogRefs = (json: string): CatalogRefs => JSON.parse(json) as CatalogRefs;

const CHUNK = 500;

/**
 * Recomputes catalog_refs of these resources from the link tables and the catalogs. Write paths call
 * refreshDerived (refresh-derived.ts), which also rewrites the search documents that hold the same names.
 */
export async function refreshCatalogRefs(trx: Executor, resourceIds: readonly string[]): Promise<void> {
  for (let start = 0; start < resourceIds.length; start += CHUNK) {
    const ids = resourceIds.slice(start, start + CHUNK);
    const [categories, tags, versions] = await Promise.all([
      trx
        .selectFrom('resource_category_links as l')
        .innerJoin('resource_categories as c', 'c.id', 'l.category_id')
        .select(['l.resource_id', 'c.id', 'c.name', 'c.slug'])
        .where('l.resource_id', 'in', ids)
        .orderBy('c.position')
        .orderBy('c.id')
        .execute(),
      trx
        .selectFrom('resource_tag_links as l')
        .innerJoin('resource_tags as t', 't.id', 'l.tag_id')
        .select(['l.resource_id', 't.id', 't.name', 't.slug'])
        .where('l.resource_id', 'in', ids)
        .orderBy('t.name')
        .orderBy('t.id')
        .execute(),
      trx
        .selectFrom('resource_game_versions as l')
        .innerJoin('game_versions as v', 'v.id', 'l.game_version_id')
        .select(['l.resource_id', 'v.id', 'v.name'])
        .where('l.resource_id', 'in', ids)
        .orderBy('v.release_order', 'desc')
        .orderBy('v.id')
        .execute(),
    ]);
    const refs = new Map<string, CatalogRefs>(
      ids.map((id) => [id, { categories: [], tags: [], gameVersions: [] }]),
    );
    for (const row of categories)
      refs.get(row.resource_id)?.categories.push({ id: row.id, name: row.name, slug: row.slug });
    for (const row of tags)
      refs.get(row.resource_id)?.tags.push({ id: row.id, name: row.name, slug: row.slug });
    for (const row of versions) refs.get(row.resource_id)?.gameVersions.push({ id: row.id, name: row.name });
    for (const [id, value] of refs) {
      await trx
        .updateTable('resources')
        .set({ catalog_refs: JSON.stringify(value) })
        .where('id', '=', id)
        .execute();
    }
  }
}

const LINKS = {
  category: { table: 'resource_category_links', column: 'category_id' },
  tag: { table: 'resource_tag_links', column: 'tag_id' },
  gameVersion: { table: 'resource_game_versions', column: 'game_version_id' },
} as const;

/** The resources linked to one catalog entry (whose catalog_refs change when the entry does). */
export async function resourcesLinkedTo(
  db: Executor,
  kind: keyof typeof LINKS,
  catalogId: string,
): Promise<string[]> {
  const { table, column } = LINKS[kind];
  const rows = await db
    .selectFrom(table)
    .select('resource_id')
    .where(column as 'category_id', '=', catalogId)
    // In id order: the refresh then locks rows in the order a search rebuild batch does (no deadlock between them).
    .orderBy('resource_id')
    .execute();
  return rows.map((row) => row.resource_id);
}
