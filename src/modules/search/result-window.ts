// The pages a text search reaches: its first SEARCH_LIMITS.resultWindow matches, as many as its total counts
// (countCap); past them a page is empty. A page's cost grows with its offset, every match before it being
// ordered or walked: at 1M on PostgreSQL a common word by relevance took 350–745 ms for the window's last page
// (resources' page 500 of 20), 2.9 s for page 1,000 and 16.5 s at offset 9,000,000 (14.6 ms now). Search
// engines bound their pages the same way (Elasticsearch's max_result_window, Meilisearch's maxTotalHits). Lists
// without a text search are not bounded here.
import { SEARCH_LIMITS } from './resource-facets.js';

/**
 * The part of a text search's page within its result window (SEARCH_LIMITS.resultWindow): the page itself, its
 * limit cut at the window's end, or undefined (empty) when it starts past it.
 */
export function searchWindow(page: {
  limit: number;
  offset: number;
}): { limit: number; offset: number } | undefined {
  const room = SEARCH_LIMITS.resultWindow - page.offset;
  return room <= 0 ? undefined : { limit: Math.min(page.limit, room), offset: page.offset };
}
