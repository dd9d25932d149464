// PostgreSQL: a search whose documents alone answer its filter (a search alone, or one whose filters are read as
// its facet terms: resources/catalog-lists.ts documentsAnswer), with facets, counted and faceted in one statement.
// Its count and its facets each read the match through GIN: the facets' second bitmap and heap visits cost
// 6–12 ms at 1M (a common word's 2,001 first matches), where counting the codes of the rows the count visits
// anyway adds 1.5–5 ms. The latency is the same (the facets ran beside the page, which costs as much); the
// database's work is less: under 50 connections at 1M, 49–50 → 54–56 req/s.
import type { Kysely } from 'kysely';
import type { DB } from '../../core/db/schema.js';
import { filterFacetTerms } from '../resources/catalog-lists.js';
import type { ResourceFilter } from '../resources/resource-views.repo.js';
import { codedFacetCounts, matchedIdsAndCodes } from './resource-facet-codes.js';
import { renderedFacets, SEARCH_LIMITS } from './resource-facets.js';
import type { FacetRequest, Facets } from './resource-facets.js';
import { documentsTotal } from './resource-totals.js';
import type { Total } from './resource-totals.js';

export interface CountedFacets {
  /** As countMatches would answer, with the documents it hands on when exact. */
  total: Total;
  facets: { facets: Facets; exact: boolean; matched: number };
}

/**
 * The total of `filter` (a search whose documents answer it) as countMatches counts it, and its facets as
 * facetsOfMatches counts them, from one read of up to max(countCap, facetScanLimit) + 1 matches: the total
 * from how many there were, the facets from the codes of the first facetScanLimit.
 */
export async function countedWithFacets(
  db: Kysely<DB>,
  filter: ResourceFilter,
  requested: readonly FacetRequest[],
): Promise<CountedFacets> {
  const cap = SEARCH_LIMITS.countCap;
  const limit = SEARCH_LIMITS.facetScanLimit;
  const terms = filterFacetTerms('postgres', filter);
  const rows = matchedIdsAndCodes({ ...filter.match!, facets: terms }, Math.max(cap, limit) + 1);
  const { counts, matched, documents } = await codedFacetCounts(db, rows, limit, true, cap + 1);
  const total = documentsTotal(matched, documents, terms, cap);
  return { total, facets: await renderedFacets(db, filter, requested, counts, matched) };
}
