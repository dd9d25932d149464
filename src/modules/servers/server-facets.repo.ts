// Facet counts of the public directory (GET /servers?facets=tags,categories) over the servers a filter matches
// (server-directory.repo.ts), counted from the catalogs' link rows (search/facets-catalog.ts).
import { sql } from 'kysely';
import type { Kysely, SqlBool, Transaction } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import type { DB } from '../../core/db/schema.js';
import { catalogFacetsOf, usageFacet } from '../search/facets-catalog.js';
import type { CatalogFacet } from '../search/facets-catalog.js';
import { withIndexPlansIf } from '../search/index-plans.js';
import { SEARCH_LIMITS } from '../search/resource-facets.js';
import {
  besideDocuments,
  catalogListsOf,
  filterConditions,
  isUnfiltered,
  linkProbe,
  matchedDocuments,
  searchDocuments,
} from './server-directory.repo.js';
import type { ServerFilter } from './server-directory.repo.js';

type Executor = Kysely<DB> | Transaction<DB>;

/**
 * Up to `limit` ids of the servers a filter without a search matches, driven by its first list's link rows
 * (distinct: a server can carry several of the asked values), each checked against the other lists and for
 * being APPROVED. `servers.id in (links)` first listed every linked id (a tag on 80,554 servers at 1M: 44 → 5
 * ms per facet). Only APPROVED servers have a search document (search/server-documents.ts), and server_search's
 * key is narrow and rarely written (index-only probes): checking that instead of each server's row took the
 * check of a tag's first 2,000 links from 22 to 5 ms at 1M resources (180k servers).
 */
function linkDrivenServers(filter: ServerFilter, limit: number) {
  const [driver, ...others] = catalogListsOf(filter);
  const checks = [
    sql<SqlBool>`exists (select 1 from server_search d where d.server_id = k.server_id)`,
    ...others.map((list) => linkProbe(list, 'k.server_id')),
  ];
  return sql`(select distinct k.server_id from ${sql.table(driver!.table)} k
    where k.${sql.ref(driver!.column)} in (${sql.join(driver!.ids)}) and ${sql.join(checks, sql` and `)}
    limit ${limit})`;
}

export const SERVER_FACETS = ['tags', 'categories'] as const;
export type ServerFacet = (typeof SERVER_FACETS)[number];

const FACETS: Record<ServerFacet, CatalogFacet & { usage: string }> = {
  tags: {
    links: 'server_tag_links',
    object: 'server_id',
    entry: 'tag_id',
    catalog: 'server_tags',
    key: 'slug',
    usage: 'usage_count',
  },
  categories: {
    links: 'server_category_links',
    object: 'server_id',
    entry: 'category_id',
    catalog: 'server_categories',
    key: 'slug',
    usage: 'usage_count',
  },
};

/**
 * Facet counts over the APPROVED servers matching the filter (all of its filters apply, as in Meilisearch, the
 * facet's own included); without any filter they are the catalogs' maintained usage counts. `matched` is the
 * filter's total: past SEARCH_LIMITS.facetScanLimit only that many matches are counted (each count a lower bound,
 * `exact` false), as for resources, since counting every link of 80k matches cost ~1 s at 200k servers. The
 * first facetScanLimit matches are all of them when there are no more, so the facets do not wait for the total:
 * they are one statement beside the count (search/facets-catalog.ts catalogFacetsOf), reading the matches once.
 */
export async function serverFacets(
  db: Kysely<DB>,
  dialect: DialectName,
  filter: ServerFilter,
  names: readonly ServerFacet[],
  matched: Promise<number>,
): Promise<{ facets: Partial<Record<ServerFacet, Record<string, number>>>; exact: boolean }> {
  const limit = SEARCH_LIMITS.facetScanLimit;
  const asked = names.map((name) => [name, FACETS[name]] as const);
  const counted = isUnfiltered(filter)
    ? Promise.all(asked.map(async ([name, facet]) => [name, await usageFacet(db, facet)] as const)).then(
        (entries) => Object.fromEntries(entries),
      )
    : // A search's matches are read from the GIN index (index-plans.ts): the planner would otherwise scan the
      // documents or the links (1.2–2.5 s for some searches at 1M resources).
      withIndexPlansIf(filter.search !== undefined, db, dialect, (read) =>
        catalogFacetsOf(read, asked, matchingServers(read, dialect, filter, limit)),
      );
  const [facets, total] = await Promise.all([counted, matched]);
  return { facets, exact: isUnfiltered(filter) || total <= limit };
}

/** The ids of up to `limit` servers a (non-empty) filter matches, for facets. */
function matchingServers(db: Executor, dialect: DialectName, filter: ServerFilter, limit: number) {
  if (filter.search === undefined) return linkDrivenServers(filter, limit);
  if (catalogListsOf(besideDocuments(dialect, filter)).length === 0) {
    // A search, with lists only on PostgreSQL (their terms are in the documents, migration 0040): its documents
    // are its matches (only APPROVED servers have one), no server row read.
    return sql`(select d.server_id from ${sql.table(matchedDocuments(dialect))} d
      where ${searchDocuments(dialect, filter.search, filter, 'd')} limit ${limit})`;
  }
  return db.selectFrom('servers').select('servers.id').where(filterConditions(dialect, filter)).limit(limit);
}
