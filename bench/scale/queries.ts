// The query kinds of `npm run bench:scale`: each makes distinct URLs (so no answer cache helps) from the same
// vocabulary and catalogs the catalogue was seeded with.
import { RESOURCE_TYPES } from '../../src/modules/resources/resources.schemas.js';
import { int, pick, zipf } from './random.js';
import { contentWord } from './text.js';
import type { Vocabulary } from './text.js';
import type { Database } from '../../src/core/db/database.js';

export interface QueryContext {
  v: Vocabulary;
  tagSlugs: string[];
  categorySlugs: string[];
  gameVersions: string[];
  serverTagIds: string[];
  serverCategoryIds: string[];
}

export interface QueryKind {
  name: string;
  /** Sent with the moderator's API key (the endpoint needs one). */
  auth?: boolean;
  make(random: () => number): string;
}

export const TYPES = RESOURCE_TYPES;
export const SORTS = ['date', 'updated', 'downloads', 'likes', 'name'] as const;
export const FACETS = 'facets=type,tags,categories,gameVersions';

const q = (value: string) => encodeURIComponent(value);

/** 1–3 words as someone types them: lower or title case. */
function words(ctx: QueryContext, random: () => number, max = 3): string {
  const count = 1 + int(random, max);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const word = contentWord(ctx.v, random);
    out.push(random() < 0.3 ? word.charAt(0).toUpperCase() + word.slice(1) : word);
  }
  return out.join(' ');
}

const stripMarks = (word: string) => word.normalize('NFKD').replace(/\p{M}+/gu, '');

/** A word with a diacritic (as written or without it), or a common word with one typo. */
function fuzzyWord(ctx: QueryContext, random: () => number): string {
  const roll = random();
  if (roll < 0.35) {
    const word = pick(random, ctx.v.diacritic);
    return random() < 0.5 ? word : stripMarks(word).toLowerCase();
  }
  let word = contentWord(ctx.v, random);
  while (word.length < 5) word = contentWord(ctx.v, random);
  const at = 1 + int(random, word.length - 2);
  if (roll < 0.55) return word.slice(0, at) + word.slice(at + 1); // a dropped letter
  if (roll < 0.75) return word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2); // swapped letters
  return word.slice(0, at) + pick(random, ['é', 'ü', 'ö', 'à', 'ñ']) + word.slice(at + 1); // an accent typed in
}

export function queryKinds(ctx: QueryContext): QueryKind[] {
  const tagRank = zipf(ctx.tagSlugs.length, 0.7);
  const tag = (random: () => number) => ctx.tagSlugs[tagRank(random)]!;
  const page = (random: () => number, pages: number) => 1 + int(random, pages);
  const kinds: QueryKind[] = [
    { name: 'search', make: (r) => `/resources?search=${q(words(ctx, r))}` },
    { name: 'search relevance', make: (r) => `/resources?search=${q(words(ctx, r))}&sortBy=relevance` },
    {
      name: 'search prefix (type-ahead)',
      make: (r) => {
        const word = contentWord(ctx.v, r);
        const prefix = word.slice(0, Math.min(word.length, 3 + int(r, 3)));
        return `/resources?search=${q(r() < 0.5 ? prefix : `${contentWord(ctx.v, r)} ${prefix}`)}`;
      },
    },
    {
      name: 'search diacritic/typo',
      make: (r) =>
        `/resources?search=${q(r() < 0.5 ? fuzzyWord(ctx, r) : `${fuzzyWord(ctx, r)} ${words(ctx, r, 1)}`)}`,
    },
    {
      name: 'search+tag+type',
      make: (r) => `/resources?search=${q(words(ctx, r, 2))}&tags=${tag(r)}&type=${pick(r, TYPES)}`,
    },
    ...SORTS.map((sort) => ({
      name: `tags sortBy=${sort}`,
      make: (r: () => number) => `/resources?tags=${tag(r)}&sortBy=${sort}&page=${page(r, 10)}`,
    })),
    {
      name: 'type sortBy=*',
      make: (r) => `/resources?type=${pick(r, TYPES)}&sortBy=${pick(r, SORTS)}&page=${page(r, 30)}`,
    },
    {
      name: 'categories',
      make: (r) =>
        `/resources?categories=${pick(r, ctx.categorySlugs)}&sortBy=${pick(r, SORTS)}&page=${page(r, 6)}`,
    },
    {
      name: 'versions',
      make: (r) =>
        `/resources?versions=${q(pick(r, ctx.gameVersions))}&sortBy=${pick(r, SORTS)}&page=${page(r, 20)}`,
    },
    {
      name: 'two tags',
      make: (r) => `/resources?tags=${tag(r)},${tag(r)}&sortBy=${pick(r, SORTS)}`,
    },
    {
      name: 'type+tags+versions',
      make: (r) =>
        `/resources?type=${pick(r, TYPES)}&tags=${tag(r)}&versions=${q(pick(r, ctx.gameVersions))}` +
        `&sortBy=${pick(r, SORTS)}&page=${page(r, 3)}`,
    },
    { name: 'search +facets', make: (r) => `/resources?search=${q(words(ctx, r))}&${FACETS}` },
    {
      name: 'tags +facets',
      make: (r) => `/resources?tags=${tag(r)}&sortBy=${pick(r, SORTS)}&page=${page(r, 10)}&${FACETS}`,
    },
    {
      name: 'type +facets',
      make: (r) => `/resources?type=${pick(r, TYPES)}&sortBy=${pick(r, SORTS)}&page=${page(r, 30)}&${FACETS}`,
    },
    {
      name: 'no filter +facets',
      make: (r) =>
        `/resources?sortBy=${pick(r, SORTS)}&page=${page(r, 50)}&limit=${10 + int(r, 11)}&${FACETS}`,
    },
    {
      name: 'deep page 50',
      make: (r) => `/resources?tags=${tag(r)}&sortBy=${pick(r, SORTS)}&page=${50 + int(r, 3)}`,
    },
    { name: 'servers search', make: (r) => `/servers?search=${q(words(ctx, r, 2))}` },
    {
      name: 'servers tags +facets',
      make: (r) =>
        `/servers?tags=${pick(r, ctx.serverTagIds)}&offset=${20 * int(r, 50)}&facets=tags,categories`,
    },
    { name: 'teams search', make: (r) => `/teams?search=${q(words(ctx, r, 2))}` },
    {
      name: 'users search',
      auth: true,
      make: (r) => {
        const word = contentWord(ctx.v, r);
        return `/users/search?q=${q(r() < 0.5 ? word : word.slice(0, 3 + int(r, 3)))}&limit=${10 + int(r, 11)}`;
      },
    },
  ];
  return kinds;
}

/** Up to n distinct URLs of a kind (fewer when its space is smaller). */
export function distinctUrls(
  kind: QueryKind,
  n: number,
  random: () => number,
  avoid?: Set<string>,
): string[] {
  const out = new Set<string>();
  for (let attempt = 0; attempt < n * 30 && out.size < n; attempt++) {
    const url = kind.make(random);
    if (avoid === undefined || !avoid.has(url)) out.add(url);
  }
  return [...out];
}

/** The catalogs the seeded database holds, most used tags first (the query kinds draw from them). */
export async function queryContext(database: Database, v: Vocabulary): Promise<QueryContext> {
  const { db } = database;
  const [tags, categories, versions, serverTags, serverCategories] = await Promise.all([
    db
      .selectFrom('resource_tags')
      .select('slug')
      .where('usage_count', '>', 0)
      .orderBy('usage_count', 'desc')
      .execute(),
    db.selectFrom('resource_categories').select('slug').distinct().orderBy('slug').execute(),
    db.selectFrom('game_versions').select('name').orderBy('release_order', 'desc').execute(),
    db.selectFrom('server_tags').select('id').orderBy('usage_count', 'desc').execute(),
    db.selectFrom('server_categories').select('id').orderBy('position').execute(),
  ]);
  return {
    v,
    tagSlugs: tags.map((t) => t.slug),
    categorySlugs: categories.map((c) => c.slug),
    gameVersions: versions.map((g) => g.name),
    serverTagIds: serverTags.map((t) => t.id),
    serverCategoryIds: serverCategories.map((c) => c.id),
  };
}
