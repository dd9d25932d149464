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

export const RESOURCE_SORTS = ['downloads', 'likes', 'date', 'updated', 'name'] as const;
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

export const ResourceListQuery = Type.Object({
  ...PageQuery.properties,
  type: Type.Optional(ResourceTypeName),
  search: Type.Optional(
    Type.String({
      maxLength: 100,
      description: 'Case-insensitive part of the name or short description; % and _ match literally',
    }),
  ),
  tags: Type.Optional(filterList('Resource tag slugs or IDs')),
  categories: Type.Optional(filterList('Category slugs or IDs')),
  versions: Type.Optional(filterList('Game version names (e.g. 1.2)')),
  sortBy: Type.Optional(
    StringEnum(RESOURCE_SORTS, {
      description: 'downloads, likes, date (created), updated: highest/newest first; name: A→Z. Default date',
    }),
  ),
});

export { OPTIONAL_AUTH } from '../../core/http/openapi.js';

export const ResourceIdParams = Type.Object({ id: Id });
export const ResourceSlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 100 }) });
