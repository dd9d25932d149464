// One tag's public list in any order, read from the tag's own link rows: each carries its resource's status and
// sort keys (migration 0046), and an index per sort column orders an APPROVED resource's links by tag, key and
// id, the lists' order. A page then costs its end in index entries, wherever it is: at 1M, page 50 of a tag
// walked the sort index testing each row against the tag (~1,000 / the tag's share of the rows) or read every
// member and sorted them, 19–40 ms (p50, by machine) on both dialects whatever the tag's size; now 2.3 ms on
// PostgreSQL and 1.5 ms on SQLite (docs/performance.md, thirtieth session).
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../core/db/schema.js';
import { viewQuery } from './resource-views.repo.js';
import type { ResourceFilter, ResourceOrder, ResourceViewRow } from './resource-views.repo.js';

/**
 * The tag whose link rows give the filter's pages: the public list (APPROVED, nothing else restricting what is
 * seen) of exactly one tag and no other filter. A type, another list or several tags (any of them matches) are
 * read as before: their links' order is not the page's.
 */
export function sortedTagLinks(filter: ResourceFilter): string | undefined {
  const onlyTag =
    filter.match === undefined &&
    filter.status === 'APPROVED' &&
    !filter.visibility &&
    filter.owner === undefined &&
    filter.type === undefined &&
    filter.categoryIds === undefined &&
    filter.gameVersionIds === undefined;
  return onlyTag && filter.tagIds?.length === 1 ? filter.tagIds[0] : undefined;
}

/** A page of one tag's APPROVED resources in the list's order (the column, then the id, both one way). */
export function listByTagLinks(
  db: Kysely<DB> | Transaction<DB>,
  tagId: string,
  order: ResourceOrder,
  limit: number,
  offset: number,
): Promise<ResourceViewRow[]> {
  const key = `l.resource_${order.column}` as const;
  const ids = db
    .selectFrom('resource_tag_links as l')
    .select('l.resource_id')
    .where('l.tag_id', '=', tagId)
    // A literal, never a parameter: SQLite picks a partial index only for a WHERE that names its condition.
    .where(sql<boolean>`l.resource_status = 'APPROVED'`)
    .orderBy(key, order.direction)
    .orderBy('l.resource_id', order.direction)
    .limit(limit)
    .offset(offset);
  return viewQuery(db)
    .where('resources.id', 'in', ids)
    .orderBy(`resources.${order.column}`, order.direction)
    .orderBy('resources.id', order.direction)
    .execute();
}
