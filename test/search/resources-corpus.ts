// A fixed corpus for the resource search tests: resources made through the API from a seeded generator, with
// what the tests need to compute the expected answers by brute force (every word of every document).
import { expect } from 'vitest';
import type { App } from '../../src/app.js';
import type { ManualClock } from '../../src/core/clock.js';
import type { TestUser } from '../helpers/factories.js';
import { createResource, moderate, readCatalogs } from '../resources/helpers.js';
import type { Catalogs, ResourceBody } from '../resources/helpers.js';

/** An independent tokenizer: folded words of letters and digits (the rule the API documents). */
export const wordsOf = (text: string): string[] =>
  text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');

export const VOCABULARY = [
  'amber',
  'birch',
  'cobalt',
  'dune',
  'ember',
  'frost',
  'granite',
  'harbor',
  'ivory',
  'jade',
  'kelp',
  'lumen',
  'marble',
  'nectar',
  'onyx',
  'pine',
  'quartz',
  'raven',
  'sable',
  'thistle',
];

export const CORPUS_TYPES = ['MOD', 'PLUGIN', 'WORLD', 'ASSET_PACK'] as const;

/** mulberry32: the same corpus on every run and dialect. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface CorpusEntry {
  resource: ResourceBody;
  /** Creation order: later is newer. */
  index: number;
  approved: boolean;
  words: Set<string>;
}

export interface Corpus {
  catalogs: Catalogs;
  entries: CorpusEntry[];
}

/** `count` resources by `owners` in turn, every seventh one left PENDING; the clock moves 1 s per resource. */
export async function buildCorpus(
  app: App,
  clock: ManualClock,
  owners: TestUser[],
  moderator: TestUser,
  count: number,
): Promise<Corpus> {
  const catalogs = await readCatalogs(app);
  const next = random(17);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const some = <T>(list: readonly T[], max: number): T[] => {
    const chosen = new Set<T>();
    const n = Math.floor(next() * (max + 1));
    for (let i = 0; i < n; i++) chosen.add(pick(list));
    return [...chosen];
  };
  const tags = catalogs.tags.filter((tag) =>
    ['multiplayer', 'lightweight', 'library', 'combat', 'magic', 'horror'].includes(tag.slug),
  );
  const versions = catalogs.gameVersions.filter((v) => ['1.0', '1.1', '1.2'].includes(v.name));
  const entries: CorpusEntry[] = [];
  for (let index = 0; index < count; index++) {
    clock.advance(1000);
    const type = pick(CORPUS_TYPES);
    const categories = catalogs.categories.filter((c) => c.resourceType === type);
    const name = `${pick(VOCABULARY)} ${pick(VOCABULARY)}`;
    const shortDescription = `${pick(VOCABULARY)} ${pick(VOCABULARY)} ${pick(VOCABULARY)}`;
    // The link target is not indexed: only the link text is.
    const description = `Made of **${pick(VOCABULARY)}**, see [${pick(VOCABULARY)}](https://example.test/zircon).`;
    const owner = owners[index % owners.length]!;
    const body = {
      name,
      slug: `corpus-${index}-${process.pid}`,
      shortDescription,
      description,
      type,
      tagIds: some(tags, 2).map((tag) => tag.id),
      categoryIds: some(categories.slice(0, 3), 1).map((c) => c.id),
      gameVersionIds: some(versions, 2).map((v) => v.id),
    };
    let resource = await createResource(app, owner, body);
    const approved = index % 7 !== 3;
    if (approved) resource = await moderate(app, moderator, resource.id, 'APPROVE');
    const text = [
      name,
      shortDescription,
      description.replace(/\]\([^)]*\)/g, ']'),
      ...resource.tags.map((tag) => tag.name),
      ...resource.categories.map((category) => category.name),
      owner.username,
    ].join(' ');
    entries.push({ resource, index, approved, words: new Set(wordsOf(text)) });
  }
  expect(entries.filter((e) => e.approved).length).toBeGreaterThan(count * 0.8);
  return { catalogs, entries };
}

/** Whether an entry matches a search as documented (every word; the last as a prefix unless followed by a space). */
export function matches(entry: CorpusEntry, search: string): boolean {
  // Words typed joined must be adjacent within a field (a phrase): this brute force keeps no word order.
  if (search.split(/\s+/).some((chunk) => wordsOf(chunk).length > 1))
    throw new Error(`not modelled here: words typed joined in ${JSON.stringify(search)}`);
  const terms = [...new Set(wordsOf(search))];
  if (terms.length === 0) return true;
  const prefixLast = !/[^\p{L}\p{N}]$/u.test(search);
  return terms.every((term, i) =>
    prefixLast && i === terms.length - 1
      ? [...entry.words].some((word) => word.startsWith(term))
      : entry.words.has(term),
  );
}
