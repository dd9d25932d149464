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

/**
 * PostgreSQL: a facet key as a term of the document's tsvector (migration 0030's resource_facet_terms writes the
 * same): `#` keeps it apart from every word (folded words are letters and digits).
 */
export const facetTermOf = ([facet, scope, value]: FacetKey): string => `#${facet}/${scope}/${value}`;

/** The term quoted as a tsquery operand. */
const facetTerm = (key: FacetKey) => `'${facetTermOf(key).replace(/['\\]/g, (c) => `\\${c}`)}'`;

/**
 * PostgreSQL: a type and catalog filters as a tsquery of the documents' facet terms: any value of each list (with
 * the type as their scope where the keys carry one: tags, game versions), every list, and the type itself
 * unless a list is scoped by it.
 */
export function facetTerms(
  type: string | undefined,
  lists: ReadonlyArray<{ facet: 'tag' | 'category' | 'version'; ids: readonly string[] }>,
): string | undefined {
  const terms = lists.map(({ facet, ids }) => {
    const scope = facet === 'category' ? '' : (type ?? '');
    return `(${ids.map((id) => facetTerm([facet, scope, id])).join(' | ')})`;
  });
  if (type !== undefined && lists.every((list) => list.facet === 'category')) {
    terms.unshift(facetTerm(['type', '', type]));
  }
  return terms.length === 0 ? undefined : terms.join(' & ');
}
