// The facet keys of a resource document (resource_search.facet_keys): [facet, scope, value] triples, counted per
// key in resource_facet_counts by triggers (migration 0024). Scope '' counts among all APPROVED resources; a
// resource type as scope counts among that type's, so `type=MOD` with a single tag or game version, and the
// facets of `type=MOD` alone, are answered from counters too. Categories belong to one type, so they need none.
import type { DialectName } from '../../core/db/database.js';
import type { CatalogRefs } from '../resources/catalog-refs.repo.js';
import { tsLexeme } from './match.js';

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

/**
 * PostgreSQL: a facet key as a term of the document's tsvector (migration 0030's resource_facet_terms writes the
 * same): `#` keeps it apart from every word (folded words are letters and digits).
 */
export const facetTermOf = ([facet, scope, value]: FacetKey): string => `#${facet}/${scope}/${value}`;

/**
 * SQLite: FTS5's unicode61 tokenizer splits text at anything but letters, digits and private-use characters
 * (Unicode category Co), and search/text.ts leaves only letters and digits in a word. So a facet key becomes one
 * token that starts with a private-use character, which no search word or prefix can reach; private-use
 * characters also stand for its separators and its punctuation (ids are UUIDs: `-`; types: `_`).
 */
const FTS_MARKS = { term: '\uE000', part: '\uE001', hyphen: '\uE002', underscore: '\uE003' } as const;

/** SQLite: a facet key as a term of the document's FTS5 entry (FTS_FACET_TERMS writes the same). */
export const ftsFacetTermOf = ([facet, scope, value]: FacetKey): string =>
  `${FTS_MARKS.term}${[facet, scope, value].join(FTS_MARKS.part)}`
    .replaceAll('-', FTS_MARKS.hyphen)
    .replaceAll('_', FTS_MARKS.underscore);

/**
 * SQLite: the facet terms of a document, space-separated, from its facet_keys as SQL (migration 0031's generated
 * column): the JSON normalised by json(), then its punctuation replaced. The same as ftsFacetTermOf of each key.
 */
export const FTS_FACET_TERMS = (() => {
  const char = (mark: string) => `char(${mark.codePointAt(0)})`;
  const steps: Array<[string, string]> = [
    [`'-'`, char(FTS_MARKS.hyphen)],
    [`'_'`, char(FTS_MARKS.underscore)],
    [`'"],["'`, `' ' || ${char(FTS_MARKS.term)}`],
    [`'[["'`, char(FTS_MARKS.term)],
    [`'"]]'`, `''`],
    [`'","'`, char(FTS_MARKS.part)],
    [`'[]'`, `''`],
  ];
  return steps.reduce((text, [from, to]) => `replace(${text}, ${from}, ${to})`, 'json(facet_keys)');
})();

/** The term quoted as a tsquery operand. */
const tsFacetTerm = (key: FacetKey) => tsLexeme(facetTermOf(key));

/** The term quoted as an FTS5 string. */
const ftsFacetTerm = (key: FacetKey) => `"${ftsFacetTermOf(key).replaceAll('"', '""')}"`;

/**
 * A type and catalog filters as a query of the documents' facet terms: a tsquery (PostgreSQL) or an FTS5
 * expression (SQLite). Any value of each list (with the type as their scope where the keys carry one: tags, game
 * versions), every list, and the type itself unless a list is scoped by it.
 */
export function facetTerms(
  dialect: DialectName,
  type: string | undefined,
  lists: ReadonlyArray<{ facet: 'tag' | 'category' | 'version'; ids: readonly string[] }>,
): string | undefined {
  const [term, or, and] =
    dialect === 'postgres' ? [tsFacetTerm, ' | ', ' & '] : [ftsFacetTerm, ' OR ', ' AND '];
  const terms = lists.map(({ facet, ids }) => {
    const scope = facet === 'category' ? '' : (type ?? '');
    return `(${ids.map((id) => term([facet, scope, id])).join(or)})`;
  });
  if (type !== undefined && lists.every((list) => list.facet === 'category')) {
    terms.unshift(term(['type', '', type]));
  }
  return terms.length === 0 ? undefined : terms.join(and);
}
