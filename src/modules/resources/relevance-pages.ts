// Relevance pages of a search (search/resource-match.ts): the score classes that come first (the top tier,
// every word in the name, then the class after it), each in popularity order, when they fill the page;
// else every match of the narrowest name tier that fills it, scored.
import type { Kysely } from 'kysely';
import { readCounter } from '../../core/db/counters.js';
import type { DialectName } from '../../core/db/database.js';
import type { DB } from '../../core/db/schema.js';
import { withNameCompletions } from '../search/name-words.js';
import { SEARCH_LIMITS } from '../search/resource-facets.js';
import {
  hashedWalkRows,
  listedMatchesPlan,
  plansSettledAt,
  scanPays,
  walkPays,
} from '../search/plan-costs.js';
import { allButOneTier, nameTiers, topTier } from '../search/resource-match.js';
import type { SearchMatch } from '../search/resource-match.js';
import { countMatches, withDocuments } from '../search/resource-totals.js';
import type { Total } from '../search/resource-totals.js';
import { listByPopularity, listByRelevance } from './resource-views.repo.js';
import type { ResourceFilter, ResourceViewRow } from './resource-views.repo.js';
import { isSearchAlone } from './catalog-lists.js';
import { statusCounter } from './resources.repo.js';

/**
 * A relevance page of `match`'s matches under `planned` (the list's filter and plan). `planned.match` may carry
 * the documents its count read: the tiers are other matches, read anew.
 */
export async function relevancePage(
  exec: Kysely<DB>,
  dialect: DialectName,
  planned: ResourceFilter,
  match: SearchMatch,
  limit: number,
  offset: number,
): Promise<ResourceViewRow[]> {
  const approved = () => readCounter(exec, dialect, statusCounter('APPROVED'));
  /**
   * Relevance, when the matches with every word in the name (search/resource-match.ts topTier) fill the page:
   * they score highest and equally, so the page is theirs by popularity. Also when they and the next score
   * class (allButOneTier, read from the indexes of the names and keywords) fill it: the top tier's matches,
   * then that class's, each by popularity. Undefined when they do not fill it.
   */
  const topTierPage = async (full: SearchMatch) => {
    const top: ResourceFilter = { ...planned, match: topTier(full) };
    const settled = await plansSettledAt(offset + limit, approved);
    const counted = await countMatches(exec, dialect, { ...top, plan: 'gather' }, settled);
    if (counted.total >= offset + limit) return popularityPage(top, counted, limit, offset);
    // Past the cap it is only known that at least `cap` of them exist.
    const nextClass = counted.exact ? allButOneTier(full) : undefined;
    if (nextClass === undefined) return undefined;
    const next: ResourceFilter = { ...planned, match: nextClass };
    const nextCounted = await countMatches(exec, dialect, { ...next, plan: 'gather' }, settled);
    if (counted.total + nextCounted.total < offset + limit) return undefined;
    const fromTop = offset < counted.total ? counted.total - offset : 0;
    const [first, rest] = await Promise.all([
      fromTop > 0 ? popularityPage(top, counted, fromTop, offset) : [],
      popularityPage(next, nextCounted, limit - fromTop, Math.max(0, offset - counted.total)),
    ]);
    return [...first, ...rest];
  };
  /**
   * A page of one tier's matches, all of one text score, by popularity: when the count listed them and the
   * popularity index holds all the walk tests (no type), as listedMatchesPlan says; else 'scan' when many.
   */
  const popularityPage = async (tier: ResourceFilter, counted: Total, size: number, skip: number) => {
    const plan =
      counted.documents !== undefined && tier.type === undefined
        ? await listedMatchesPlan(dialect, counted.total, skip + size, approved)
        : (await scanPays(counted, skip + size, approved))
          ? 'scan'
          : (await walkPays(counted.total, skip + size, approved))
            ? 'walk'
            : 'gather';
    // A hashed walk of listed matches is bounded (ResourceFilter.walk).
    const walk = plan === 'hashed' ? await hashedWalkRows(counted.total, skip + size, approved) : undefined;
    return listByPopularity(exec, dialect, withDocuments({ ...tier, plan, walk }, counted), size, skip);
  };
  /** The narrowest name tier that fills the page, alone (search/resource-match.ts nameTiers). */
  const scoredMatch = async (full: SearchMatch): Promise<SearchMatch> => {
    for (const names of nameTiers(full)) {
      const gathered: ResourceFilter = { ...planned, match: names, plan: 'gather' };
      // SQLite counts them all (to the cap, or the page's end past it), so that an exact count's documents
      // spare the page FTS5's work again. PostgreSQL too for a search alone's tier of two words in the name,
      // whose every name the page would test again (`epic battle Trees` at 1M: 14,981 names tested for 842
      // matches, 180 ms each time; the page then scores the 842 listed). For the others (or with filters,
      // whose count lists nothing) it only needs to know whether they fill it.
      const listed = dialect === 'sqlite' || (names.inName === 'two' && isSearchAlone(gathered));
      const cap = listed ? Math.max(SEARCH_LIMITS.countCap, offset + limit) : offset + limit;
      const counted = await countMatches(exec, dialect, gathered, cap);
      if (!counted.exact || counted.total >= offset + limit) return withDocuments(gathered, counted).match!;
    }
    return full;
  };

  // The tiers read the name's own index on PostgreSQL, where a prefix is best written out.
  const named =
    dialect === 'postgres' ? await withNameCompletions(exec, match, SEARCH_LIMITS.nameCompletions) : match;
  const top = await topTierPage(named);
  if (top !== undefined) return top;
  const full = { ...(planned.match ?? match), completions: named.completions };
  return listByRelevance(exec, dialect, { ...planned, match: await scoredMatch(full) }, limit, offset);
}
