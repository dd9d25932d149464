// The facet keys of a resource document (resource_search.facet_keys): [facet, scope, value] triples, counted per
// key in resource_facet_counts by triggers (migration 0024). Scope '' counts among all APPROVED resources; a
// resource type as scope counts among that type's, so `type=MOD` with a single tag or game version, and the
// facets of `type=MOD` alone, are answered from counters too. Categories belong to one type, so they need none.
import type { CatalogRefs } from '../resources/catalog-refs.repo.js';

export type FacetName = 'type' | 'tag' | 'category' | 'version';
export type FacetKey = [facet: FacetName, scope: string, value: string];

export function facetKeys(type: string, refs: CatalogRefs): string {
  const keys: FacetKey[] = [['type', '', type]];
  for (const tag of refs.tags) keys.push(['tag', '', tag.id], ['tag', type, tag.id]);
  for (const category of refs.categories) keys.push(['category', '', category.id]);
  for (const version of refs.gameVersions)
    keys.push(['version', '', version.id], ['version', type, version.id]);
  return JSON.stringify(keys);
}

export const parseFacetKeys = (json: string): FacetKey[] => JSON.parse(json) as FacetKey[];
