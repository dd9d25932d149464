import { Type } from 'typebox';
import {
  Id,
  Limit,
  Name,
  Nullable,
  Offset,
  PageMeta,
  ShortDescription,
  Slug,
  StringEnum,
  Timestamp,
  named,
  ref,
} from '../../core/http/schemas.js';
import { RESOURCE_TYPES } from '../resources/resources.schemas.js';

/** The popular-tags path also takes the interface's other type names (DESIGN §8). */
export const TYPE_ALIASES = { TEXTURE_PACK: 'ASSET_PACK', TOOLS_SCRIPTS: 'PLUGIN' } as const;
export const POPULAR_TAG_TYPES = [
  ...RESOURCE_TYPES,
  ...(Object.keys(TYPE_ALIASES) as Array<keyof typeof TYPE_ALIASES>),
];

const tagFields = {
  id: Id,
  name: Type.String(),
  slug: Type.String(),
  description: Nullable(Type.String()),
  usageCount: Type.Integer({ description: 'Resources carrying the tag (any status)' }),
  createdAt: Timestamp,
};

export const ResourceTag = named('ResourceTag', Type.Object(tagFields));

export const PopularResourceTag = named(
  'PopularResourceTag',
  Type.Object({
    ...tagFields,
    usageCount: Type.Integer({ description: 'Resources of this type carrying the tag' }),
    resourceType: StringEnum(RESOURCE_TYPES),
  }),
);

export const ResourceTagList = Type.Object({
  tags: Type.Array(ref(ResourceTag)),
  total: Type.Integer(),
  meta: ref(PageMeta),
});

export const ResourceTagListQuery = Type.Object({
  search: Type.Optional(Type.String({ maxLength: 100, description: 'Part of the name, case-insensitive' })),
  limit: Type.Optional(Limit(100)),
  offset: Type.Optional(Offset),
});

export const ResourceTagSearchQuery = Type.Object({
  q: Type.String({ minLength: 1, maxLength: 100, description: 'Part of the name or slug, case-insensitive' }),
  limit: Type.Optional(Limit(10)),
});

export const ResourceTagSearchResult = Type.Object({
  tags: Type.Array(
    Type.Object({ id: Id, name: Type.String(), slug: Type.String(), usageCount: Type.Integer() }),
  ),
});

export const PopularTagsParams = Type.Object({
  type: StringEnum(POPULAR_TAG_TYPES, { description: 'TEXTURE_PACK = ASSET_PACK, TOOLS_SCRIPTS = PLUGIN' }),
});
export const PopularTagsQuery = Type.Object({
  limit: Type.Optional(Limit(20)),
});

export const CreateResourceTagBody = Type.Object(
  { name: Name, slug: Slug, description: Type.Optional(Nullable(ShortDescription)) },
  { additionalProperties: false },
);

export const UpdateResourceTagBody = Type.Object(
  {
    name: Type.Optional(Name),
    slug: Type.Optional(Slug),
    description: Type.Optional(Nullable(ShortDescription)),
  },
  { additionalProperties: false },
);

export const TagIdParams = Type.Object({ id: Id });
export const TagSlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 100 }) });
