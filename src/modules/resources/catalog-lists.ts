// The catalog filters of a resource list (tags, categories, game versions): their link tables, and how a
// filter's lists are read, from the link rows or (with a search) as the documents' facet terms.
import { sql } from 'kysely';
import type { ExpressionBuilder, RawBuilder, SqlBool } from 'kysely';
import type { DialectName } from '../../core/db/database.js';
import type { DB, ResourceType } from '../../core/db/schema.js';
import { facetTerms } from '../search/resource-facet-keys.js';
import type { ResourceFilter } from './resource-views.repo.js';

/**
 * A catalog filter: the link table, its catalog column, the wanted values (any of them matches), the filter field
 * that holds them and the facet that counts them (search/resource-facet-keys.ts).
 */
export interface CatalogList {
  table: 'resource_tag_links' | 'resource_category_links' | 'resource_game_versions';
  column: 'tag_id' | 'category_id' | 'game_version_id';
  field: 'tagIds' | 'categoryIds' | 'gameVersionIds';
  facet: 'tag' | 'category' | 'version';
  ids: string[];
  /**
   * Tags with a type filter: the type their link rows carry (migration 0029), so that only that type's links
   * are read. (A category belongs to one type already; game version links carry none.)
   */
  type?: ResourceType;
}

const CATALOG_LISTS = [
  { table: 'resource_tag_links', column: 'tag_id', field: 'tagIds', facet: 'tag' },
  { table: 'resource_category_links', column: 'category_id', field: 'categoryIds', facet: 'category' },
  { table: 'resource_game_versions', column: 'game_version_id', field: 'gameVersionIds', facet: 'version' },
] as const;

/** The filter's catalog lists, tags first. */
export function catalogLists(filter: ResourceFilter): CatalogList[] {
  return CATALOG_LISTS.flatMap((list) => {
    const ids = filter[list.field];
    if (ids === undefined) return [];
    return [
      list.facet === 'tag' && filter.type !== undefined
        ? { ...list, ids, type: filter.type }
        : { ...list, ids },
    ];
  });
}

/** A search and nothing else (no type, no catalog list): its matches alone decide the total and the page. */
export const isSearchAlone = (filter: ResourceFilter): boolean =>
  filter.match !== undefined && filter.type === undefined && catalogLists(filter).length === 0;

/** The ids of the resources linked to any of the list's values (of the list's type, when it has one). */
export function linkIds(eb: ExpressionBuilder<DB, 'resources'>, list: CatalogList) {
  return eb
    .selectFrom(`${list.table} as l` as 'resource_tag_links as l')
    .select('l.resource_id')
    .where(linkRowsOf(list));
}

/**
 * Walking a sort index (MatchPlan 'hashed'): whether the current `resources` row is linked to any of the list's
 * values, tested against the list's link ids read once into a hash (PostgreSQL) or an in-memory index (SQLite),
 * where a probe of the link table per walked row cost ~6 µs (PostgreSQL) and ~2.7 µs (SQLite) at 1M: a tag on 1%
 * of the resources, page 7 by downloads, 14,062 rows walked, PostgreSQL 91 → 4–11 ms; page 10, 20,000 rows,
 * SQLite 66 → 10 ms. PostgreSQL turns an IN at the top of a WHERE into a semi join, which walking probes per row;
 * inside IS TRUE it stays an expression, which it runs as a hashed subplan when the ids fit in hash_mem
 * (work_mem × hash_mem_multiplier): past it each row would read them again, so the caller keeps the lists within
 * hashedLinksLimit (search/plan-costs.ts). SQLite's unary + keeps the id from driving (a gather by id).
 */
export function hashedLinkTest(
  eb: ExpressionBuilder<DB, 'resources'>,
  dialect: DialectName,
  list: CatalogList,
): RawBuilder<SqlBool> {
  return dialect === 'postgres'
    ? sql<SqlBool>`(resources.id in (${linkIds(eb, list)})) is true`
    : sql<SqlBool>`+resources.id in (${linkIds(eb, list)})`;
}

/** SQL: the list's link rows `l` of its values (and type). */
export function linkRowsOf(list: CatalogList): RawBuilder<SqlBool> {
  const values = sql<SqlBool>`l.${sql.ref(list.column)} in (${sql.join(list.ids)})`;
  return list.type === undefined ? values : sql<SqlBool>`${values} and l.resource_type = ${list.type}`;
}

/**
 * Whether the current `resources` row is linked to any of the list's values (one primary-key probe). `limit 1`
 * keeps it a correlated subquery: SQLite 3.51 otherwise may turn the EXISTS into a join that starts from the
 * link rows and returns a resource once per matching value (seen with two tags on a small table).
 */
export function linkProbe(list: CatalogList) {
  return sql`select 1 from ${sql.table(list.table)} lp where lp.resource_id = resources.id
    and lp.${sql.ref(list.column)} in (${sql.join(list.ids)}) limit 1`;
}

/**
 * A search read from the whole document's index with filter.facetTerms: the type and the catalog lists as a query
 * of that index's facet terms (a tsquery on PostgreSQL, FTS5 on SQLite), so that one index scan intersects them
 * with the words. A match whose documents were already read carries the terms they were read with, if any
 * (search/resource-totals.ts countMatches): those documents are the filter's matches.
 */
export function filterFacetTerms(dialect: DialectName, filter: ResourceFilter): string | undefined {
  const { match } = filter;
  // A scan tests each row's text alone (search/resource-match.ts textMatch): the lists stay conditions.
  if (match === undefined || filter.plan === 'scan') return undefined;
  if (match.documents !== undefined) return match.facets;
  if (filter.facetTerms !== true) return undefined;
  // PostgreSQL reads words in the name from the name's own index (search/resource-match.ts), without the terms.
  if (match.inName !== undefined && dialect === 'postgres') return undefined;
  return facetTerms(dialect, filter.type, catalogLists(filter));
}

/**
 * Whether a search's filters are read as facet terms (SearchMatch.facets) of APPROVED resources and nothing else:
 * then its documents alone answer, as a search alone's (every document is an APPROVED resource's, its type among
 * the terms). Joined to `resources`, PostgreSQL's planner hashed every resource of the type (314k MOD at 1M,
 * 239 ms), and its page walked the type's date index testing each document (a common word with a tag of 730
 * PLUGIN resources: 159 ms, 14,000 documents read).
 */
export function documentsAnswer(dialect: DialectName, filter: ResourceFilter): boolean {
  if (filter.status !== 'APPROVED' || filter.owner !== undefined || filter.visibility) return false;
  return filterFacetTerms(dialect, filter) !== undefined;
}

/**
 * SQLite, a gathered page of one catalog list without a search: whether the list's link rows alone hold the
 * filter (a tag's carry the type, a category belongs to one; a game version's carry none), so that the page reads
 * them from one range of the list's index rather than as facet terms, which cost an FTS5 row and a document row
 * per match before the resource's own. At 1M, a tag of 2,813 resources, page 52 by date: 28–30 → 22–25 ms.
 */
export function gatheredFromLinks(filter: ResourceFilter): boolean {
  const lists = catalogLists(filter);
  if (filter.match !== undefined || lists.length !== 1) return false;
  return filter.type === undefined || lists[0]!.facet !== 'version';
}

/**
 * Catalog lists without a search: the type and the lists as the documents' facet terms (migrations 0030, 0031),
 * for the count (both dialects), the gathered page (SQLite; of one list, its link rows: gatheredFromLinks) and the
 * facets (SQLite). Only for a filter of APPROVED resources with nothing the documents do not hold (an owner, a
 * visibility): every document is an APPROVED resource's. The full-text index intersects the lists' term lists
 * (FTS5 skipping through them, GIN ANDing bitmaps), where SQLite drove by one list's link rows and probed each for
 * the others (at 1M, PLUGIN + `flower` + 1.5, 6,816 matches: 950 ms → 2.5 ms), and SQLite's facets read the
 * documents in their own order rather than a random resource and document row per link (a tag of 108,031
 * resources, 2,001 of them: 194 → 3 ms).
 */
export function catalogFacetTerms(dialect: DialectName, filter: ResourceFilter): string | undefined {
  if (filter.match !== undefined) return undefined;
  if (filter.status !== 'APPROVED' || filter.owner !== undefined || filter.visibility) return undefined;
  const lists = catalogLists(filter);
  return lists.length === 0 ? undefined : facetTerms(dialect, filter.type, lists);
}
