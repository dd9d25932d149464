import { Type } from 'typebox';
import type { ResourceStatus, ResourceType } from '../../core/db/schema.js';
import {
  Id,
  MarkdownDescription,
  Name,
  Nullable,
  PageMeta,
  PageQuery,
  Slug,
  StringEnum,
  Timestamp,
  named,
  ref,
} from '../../core/http/schemas.js';
import { ModerationQueuePosition } from '../moderation/queue/queue.schemas.js';
import { FACET_NAMES, FACET_VALUES } from '../search/resource-facets.js';

export const RESOURCE_TYPES = [
  'MOD',
  'PLUGIN',
  'ASSET_PACK',
  'DATA_PACK',
  'WORLD',
  'PREFAB',
  'MODPACK',
  'PREMADE_SERVER',
] as const satisfies readonly ResourceType[];

export const RESOURCE_STATUSES = [
  'PENDING',
  'APPROVED',
  'REJECTED',
  'SUSPENDED',
] as const satisfies readonly ResourceStatus[];

export const RESOURCE_SORTS = ['downloads', 'likes', 'date', 'updated', 'name', 'relevance'] as const;
export type ResourceSort = (typeof RESOURCE_SORTS)[number];

export const OWNER_TYPES = ['USER', 'TEAM'] as const;

export const ResourceTypeName = StringEnum(RESOURCE_TYPES);
export const ResourceStatusName = StringEnum(RESOURCE_STATUSES, {
  description: 'Moderation status; only APPROVED resources are public',
});

export const ResourceOwner = named(
  'ResourceOwner',
  Type.Object(
    {
      type: StringEnum(OWNER_TYPES),
      id: Id,
      username: Type.Optional(Type.String({ description: 'USER owners' })),
      displayName: Type.Optional(Nullable(Type.String({ description: 'USER owners' }))),
      image: Type.Optional(Type.String({ description: 'USER owners: avatar URL' })),
      name: Type.Optional(Type.String({ description: 'TEAM owners' })),
      slug: Type.Optional(Type.String({ description: 'TEAM owners' })),
      logoUrl: Type.Optional(Nullable(Type.String({ description: 'TEAM owners' }))),
    },
    { description: 'A USER owner has username, displayName and image; a TEAM owner name, slug and logoUrl' },
  ),
);

export const CatalogRef = named(
  'CatalogRef',
  Type.Object({ id: Id, name: Type.String(), slug: Type.String() }),
);
export const GameVersionRef = named('GameVersionRef', Type.Object({ id: Id, name: Type.String() }));

const listItemFields = {
  id: Id,
  name: Type.String(),
  slug: Type.String(),
  shortDescription: Type.String(),
  type: ResourceTypeName,
  status: ResourceStatusName,
  iconUrl: Nullable(Type.String()),
  bannerUrl: Nullable(Type.String()),
  ownerType: StringEnum(OWNER_TYPES),
  ownerId: Id,
  owner: ref(ResourceOwner),
  categories: Type.Array(ref(CatalogRef), { description: 'In catalog order' }),
  tags: Type.Array(ref(CatalogRef), { description: 'By name' }),
  gameVersions: Type.Array(ref(GameVersionRef), { description: 'Newest first' }),
  downloads: Type.Integer(),
  likeCount: Type.Integer(),
  favoriteCount: Type.Integer(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

export const ResourceListItem = named('ResourceListItem', Type.Object(listItemFields));

export const Resource = named(
  'Resource',
  Type.Object({
    ...listItemFields,
    description: Type.String({ description: 'Markdown' }),
    moderation: Type.Optional(ref(ModerationQueuePosition)),
  }),
);

export const ResourceSummary = named(
  'ResourceSummary',
  Type.Object({
    id: Id,
    name: Type.String(),
    slug: Type.String(),
    shortDescription: Type.String(),
    iconUrl: Nullable(Type.String()),
    type: ResourceTypeName,
  }),
);

export const ResourceList = Type.Object({
  resources: Type.Array(ref(ResourceListItem)),
  total: Type.Integer(),
  meta: ref(PageMeta),
});

const catalogIds = (what: string, maxItems: number) =>
  Type.Array(Id, { maxItems, description: `${what} IDs (at most ${maxItems}); duplicates are ignored` });

const ShortText = Type.String({ minLength: 1, maxLength: 250 });

export const CreateResourceBody = Type.Object(
  {
    name: Name,
    slug: Slug,
    shortDescription: ShortText,
    description: Type.Optional(MarkdownDescription),
    type: ResourceTypeName,
    categoryIds: Type.Optional(catalogIds('Category (of the same resource type)', 10)),
    tagIds: Type.Optional(catalogIds('Resource tag', 20)),
    gameVersionIds: Type.Optional(catalogIds('Game version', 100)),
    ownerType: Type.Optional(StringEnum(OWNER_TYPES, { description: 'Defaults to USER' })),
    ownerId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'Defaults to you; a team ID with TEAM' }),
    ),
  },
  { additionalProperties: false },
);

export const UpdateResourceBody = Type.Object(
  {
    name: Type.Optional(Name),
    shortDescription: Type.Optional(ShortText),
    description: Type.Optional(MarkdownDescription),
    categoryIds: Type.Optional(catalogIds('Category (of the same resource type)', 10)),
    tagIds: Type.Optional(catalogIds('Resource tag', 20)),
    gameVersionIds: Type.Optional(catalogIds('Game version', 100)),
  },
  { additionalProperties: false },
);

const filterList = (what: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
    maxItems: 50,
    description: `${what}, repeated or comma-separated; a resource matches when it has any of them`,
  });

const facetCounts = (what: string) =>
  Type.Optional(
    Type.Record(Type.String(), Type.Integer(), {
      description: `${what} → number of matching resources (top ${FACET_VALUES} by count, then key; zeros absent)`,
    }),
  );

export const ResourceCatalogueMeta = named(
  'ResourceCatalogueMeta',
  Type.Object({
    total: Type.Integer({ description: 'Matching resources (a lower bound when totalExact is false)' }),
    limit: Type.Integer(),
    offset: Type.Integer(),
    page: Type.Integer(),
    totalExact: Type.Boolean({
      description:
        'false when counting every match would cost too much: searches and filter combinations stop counting ' +
        'at 10,000 matches and `total` is then that lower bound. Without a search, the total of no filter, of ' +
        'a type, and of one value of one catalog filter (with or without type) is always exact (kept counters)',
    }),
    facets: Type.Optional(
      Type.Object(
        {
          type: facetCounts('Resource type'),
          tags: facetCounts('Tag slug'),
          categories: facetCounts(
            'Category slug (slugs are unique per type: without a type filter, equal slugs of two types add up)',
          ),
          gameVersions: facetCounts('Game version name'),
        },
        {
          description:
            'With `facets`: counts over every resource the search and all filters match (a facet is narrowed ' +
            'by its own filter too, as Meilisearch does), not over the page. A map: key order is not significant',
        },
      ),
    ),
    facetsExact: Type.Optional(
      Type.Boolean({
        description:
          'With `facets`: false when more than 2,000 resources match a search or catalog filter; the counts ' +
          'then cover 2,000 of the matches only, each a lower bound. Without a search or catalog filter facets ' +
          'are always exact',
      }),
    ),
    similar: Type.Optional(
      Type.Boolean({
        description:
          'true when the search found nothing and these are the results of the search with its misspelt ' +
          'words corrected instead (typo tolerance; PostgreSQL only)',
      }),
    ),
  }),
);

export const ResourceCatalogue = Type.Object({
  resources: Type.Array(ref(ResourceListItem)),
  total: Type.Integer(),
  meta: ref(ResourceCatalogueMeta),
});

export const ResourceListQuery = Type.Object({
  ...PageQuery.properties,
  type: Type.Optional(ResourceTypeName),
  search: Type.Optional(
    Type.String({
      maxLength: 100,
      description:
        'Full-text search of APPROVED resources: every word must occur in the name, tags, categories, short ' +
        'description, description (markdown stripped) or owner names; the last word also matches as the start ' +
        'of a word unless the search ends with a space or punctuation (type-ahead). Case and diacritics are ' +
        'ignored ("cafe" finds "Café"); only letters and digits count, so a search with none is no search. ' +
        'Words typed joined by punctuation (`epic-trees`, `user_42`) must stand next to each other, in that ' +
        'order, within one field. ' +
        'At most 8 words are used. On PostgreSQL a search of one or two words that finds nothing falls back ' +
        'to a corrected search: each word that matches no resource alone becomes the most similar word of an ' +
        'APPROVED resource name (trigram similarity at least 0.3; then the word in most names), and the ' +
        "answer says `meta.similar`. SQLite has no typo tolerance. A search's pages reach its first 10,000 " +
        'matches, as many as its total counts: a page past them is empty (its total and facets stay)',
    }),
  ),
  tags: Type.Optional(filterList('Resource tag slugs or IDs')),
  categories: Type.Optional(filterList('Category slugs or IDs')),
  versions: Type.Optional(filterList('Game version names (e.g. 1.2)')),
  sortBy: Type.Optional(
    StringEnum(RESOURCE_SORTS, {
      description:
        'downloads, likes, date (created), updated: highest/newest first; name: A→Z. Default date, with a ' +
        'search too. relevance (an extension): with a search, the text score, best first, then popularity, ' +
        'then newest id. Text score: per search word, the weight of the best field it occurs in — name 27, ' +
        'tags / categories / short description 9, description 3, owner names 1 — summed over the words. ' +
        'Popularity orders equal text scores only: 1 + min(ln(1 + downloads) + 2·ln(1 + likes), 30) / 16. ' +
        'A typo-tolerant fallback (meta.similar) is ordered as its corrected search. Without a search ' +
        'relevance is the same order as downloads',
    }),
  ),
  facets: Type.Optional(
    Type.Array(StringEnum(FACET_NAMES), {
      maxItems: 4,
      description:
        'Facet counts to add as `meta.facets`: type, tags, categories, gameVersions (repeated or ' +
        'comma-separated); anything else is a 400',
    }),
  ),
});

export { OPTIONAL_AUTH } from '../../core/http/openapi.js';

export const ResourceIdParams = Type.Object({ id: Id });
export const ResourceSlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 100 }) });
