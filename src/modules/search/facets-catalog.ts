// Facet counts over catalog links (tags, categories …): for each catalog entry, how many of the matching objects
// carry it, the top values by count (then key), as Meilisearch/Typesense clients expect `{<slug>: n}`. The count
// is driven by the links of the matching objects, so its cost follows the matches, not the table; without any
// search or filter it is read from the catalog's maintained usage counter instead.
import { sql } from 'kysely';
import type { Kysely, RawBuilder, SelectQueryBuilder, Transaction } from 'kysely';
import type { DB } from '../../core/db/schema.js';

type Executor = Kysely<DB> | Transaction<DB>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Untyped = Kysely<any>;

export interface CatalogFacet {
  /** The link table, e.g. server_tag_links. */
  links: string;
  /** Its column naming the object, e.g. server_id. */
  object: string;
  /** Its column naming the catalog entry, e.g. tag_id. */
  entry: string;
  /** The catalog, e.g. server_tags (its `id` is what `entry` holds). */
  catalog: string;
  /** The catalog column shown as the facet value, e.g. slug. */
  key: string;
  /** The catalog column counting the unfiltered set (e.g. usage_count of APPROVED servers), if it has one. */
  usage?: string;
}

/** At most this many values per facet. */
export const FACET_LIMIT = 50;

const toMap = (rows: ReadonlyArray<{ value: string; count: number | string | bigint }>) => {
  const out: Record<string, number> = {};
  for (const row of rows) out[row.value] = Number(row.count);
  return out;
};

/**
 * The counts of one facet over the objects whose ids `matching` selects (a one-column subquery), or over all of
 * them (from the usage counter) when `matching` is null. Values with no match are absent.
 */
export async function catalogFacet(
  executor: Executor,
  facet: CatalogFacet,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  matching: SelectQueryBuilder<any, any, any> | RawBuilder<unknown> | null,
  limit = FACET_LIMIT,
): Promise<Record<string, number>> {
  const db = executor as unknown as Untyped;
  if (matching === null && facet.usage !== undefined) {
    const rows = await db
      .selectFrom(`${facet.catalog} as c`)
      .select([sql.ref(`c.${facet.key}`).as('value'), sql.ref(`c.${facet.usage}`).as('count')])
      .where(sql.ref(`c.${facet.usage}`), '>', 0)
      .orderBy(sql.ref(`c.${facet.usage}`), 'desc')
      .orderBy(sql.ref(`c.${facet.key}`))
      .limit(limit)
      .execute();
    return toMap(rows as Array<{ value: string; count: number }>);
  }
  let query = db
    .selectFrom(`${facet.links} as l`)
    .innerJoin(`${facet.catalog} as c`, `c.id`, `l.${facet.entry}`)
    .select([sql.ref(`c.${facet.key}`).as('value'), sql<number>`count(*)`.as('count')]);
  if (matching !== null) query = query.where(sql.ref(`l.${facet.object}`), 'in', matching);
  const rows = await query
    .groupBy(sql.ref(`c.${facet.key}`))
    .orderBy(sql`count(*)`, 'desc')
    .orderBy(sql.ref(`c.${facet.key}`))
    .limit(limit)
    .execute();
  return toMap(rows as Array<{ value: string; count: number }>);
}
