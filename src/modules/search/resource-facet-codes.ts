// Facets counted from codes of the matches' facet values rather than from their facet keys (resource_search's
// JSON triples: a wide row each and ~600 bytes to parse). PostgreSQL: from the facet codes of the matches'
// vectors (migration 0035), in the statement that finds the matches, and named in it by hashing the values that
// exist (the catalogs' ids; the types counted); reading the keys instead meant ~2,000 random pages of
// resource_search and 1.2 MB of JSON a request. SQLite: from each document's array of small integer codes in a
// narrow table (migration 0037), counted here and named from the codes' dictionary.
import { sql } from 'kysely';
import type { Expression, Kysely, RawBuilder } from 'kysely';
import type { DB } from '../../core/db/schema.js';
import { withIndexPlansIf } from './index-plans.js';
import type { FacetName } from './resource-facet-keys.js';
import { matchingDocuments, matchingResourceIds, tsMatch } from './resource-match.js';
import type { SearchMatch } from './resource-match.js';

/** Per facet, the number of matches with each value (catalog id, or type). */
export type FacetCounts = Map<FacetName, Map<string, number>>;

interface CountRow {
  facet: FacetName | null;
  value: string | null;
  count: string | number;
}

/** PostgreSQL: up to `rows` of a match's documents as the index yields them, with their ids and facet codes. */
export const matchedIdsAndCodes = (match: SearchMatch, rows: number): RawBuilder<unknown> =>
  sql`select v.resource_id, v.facet_codes from resource_search_vectors v where v.document @@ ${tsMatch(match)}
    limit ${rows}`;

/**
 * PostgreSQL: the vectors' facet codes of up to `limit` + 1 of a match's documents (as the index yields them, or
 * the documents its count read).
 */
function matchedCodes(match: SearchMatch, limit: number): RawBuilder<unknown> {
  return match.documents === undefined
    ? matchedIdsAndCodes(match, limit + 1)
    : // Joined, each id reads its one partition; as `= any(array)`, every partition probed for every id (at
      // 1M: 6 ms a partition for 2,001 ids, none of them its own).
      sql`select v.facet_codes from (${matchingResourceIds('postgres', match)} limit ${limit + 1}) i
        join resource_search_vectors v on v.resource_id = i.resource_id`;
}

/**
 * The facet values of the first `limit` rows of `matched` (rows of facet_codes, at most `limit` + 1), one row per
 * value, and a row with a null facet: how many rows there were (past `limit`, the counts are of the first `limit`
 * only). A match's documents (matchedCodes), or a filter's matches joined to their vectors. `documentsBelow`:
 * the rows also hold resource_id, and the null-facet row's value is their ids as a JSON array when there were
 * fewer than this many (as countedDocuments hands them on).
 */
export function facetCountsStatement(
  matched: SearchMatch | Expression<unknown>,
  limit: number,
  documentsBelow?: number,
): RawBuilder<CountRow> {
  const rows = 'toOperationNode' in matched ? matched : matchedCodes(matched, limit);
  const documents =
    documentsBelow === undefined
      ? sql`null`
      : sql`(select case when count(*) < ${documentsBelow} then json_agg(m.resource_id)::text end from m)`;
  return sql<CountRow>`
    with m as materialized (${rows}),
    counts as (
      select code, count(*) as n from (select facet_codes from m limit ${limit}) f, unnest(f.facet_codes) code
      group by code),
    known as (
      select 'tag' as facet, id as value from resource_tags
      union all select 'category', id from resource_categories
      union all select 'version', id from game_versions
      union all select 'type', value from resource_facet_counts where facet = 'type' and scope = '')
    select null as facet, ${documents} as value, (select count(*) from m) as count
    union all
    select k.facet, k.value, counts.n from counts join known k on resource_facet_code(k.facet, k.value) = counts.code`;
}

/**
 * facetCountsStatement's answer, per facet, and its null-facet row (`matched`, and `documents` when asked for).
 * `indexed`: the rows are found through the documents' GIN index (a match, or a filter with a search), never by
 * a scan testing each document (index-plans.ts).
 */
export async function codedFacetCounts(
  db: Kysely<DB>,
  matched: SearchMatch | Expression<unknown>,
  limit: number,
  indexed = true,
  documentsBelow?: number,
): Promise<{ counts: FacetCounts; matched: number; documents?: string | null }> {
  const statement = facetCountsStatement(matched, limit, documentsBelow);
  const { rows } = await withIndexPlansIf(indexed, db, 'postgres', (read) => statement.execute(read));
  const counts: FacetCounts = new Map();
  let documents = 0;
  let ids: string | null = null;
  for (const row of rows) {
    if (row.facet === null) {
      documents = Number(row.count);
      ids = row.value;
      continue;
    }
    let values = counts.get(row.facet);
    if (values === undefined) counts.set(row.facet, (values = new Map()));
    values.set(row.value!, Number(row.count));
  }
  return { counts, matched: documents, ...(documentsBelow === undefined ? {} : { documents: ids }) };
}

/**
 * SQLite: up to `limit` matching documents' facet codes, as the full-text index yields its matches (every document
 * is an APPROVED resource's, so a search alone needs nothing else): the first ones are as good as any for facets
 * that say when they stopped, and reading only those spares SQLite listing every match first.
 */
export function matchingFacetCodes(match: SearchMatch, limit: number): RawBuilder<{ codes: string }> {
  if (match.documents !== undefined) {
    return sql`select codes from resource_search_facet_codes
      where doc_id in (select value from json_each(${match.documents})) limit ${limit}`;
  }
  return sql`select c.codes from (${matchingDocuments('sqlite', match)}) m
    join resource_search_facet_codes c on c.doc_id = m.doc_id limit ${limit}`;
}

/**
 * SQLite: the facet values of the first `limit` documents' codes (JSON arrays), named in one read of the
 * dictionary, and how many documents there were.
 */
export async function countFacetCodes(
  db: Kysely<DB>,
  rows: ReadonlyArray<{ codes: string }>,
  limit: number,
): Promise<{ counts: FacetCounts; matched: number }> {
  const byCode = new Map<number, number>();
  for (let index = 0; index < rows.length && index < limit; index++) {
    for (const code of JSON.parse(rows[index]!.codes) as number[])
      byCode.set(code, (byCode.get(code) ?? 0) + 1);
  }
  const counts: FacetCounts = new Map();
  if (byCode.size === 0) return { counts, matched: rows.length };
  const named = await db
    .selectFrom('resource_facet_value_codes')
    .select(['code', 'facet', 'value'])
    .where('code', 'in', sql<number>`(select value from json_each(${JSON.stringify([...byCode.keys()])}))`)
    .execute();
  for (const { code, facet, value } of named) {
    let values = counts.get(facet as FacetName);
    if (values === undefined) counts.set(facet as FacetName, (values = new Map()));
    values.set(value, byCode.get(code)!);
  }
  return { counts, matched: rows.length };
}
