import { Type } from 'typebox';
import {
  HttpUrl,
  Id,
  Limit,
  Name,
  Nullable,
  Offset,
  PageMeta,
  ShortDescription,
  Slug,
  Timestamp,
  named,
  ref,
} from '../../../core/http/schemas.js';

export const ServerTag = named(
  'ServerTag',
  Type.Object({
    id: Id,
    name: Type.String(),
    slug: Type.String(),
    description: Nullable(Type.String()),
    usageCount: Type.Integer({ description: 'APPROVED servers carrying the tag' }),
    createdAt: Timestamp,
  }),
);

export const ServerCategory = named(
  'ServerCategory',
  Type.Object({
    id: Id,
    name: Type.String(),
    slug: Type.String(),
    description: Nullable(Type.String()),
    iconUrl: Nullable(Type.String()),
    usageCount: Type.Integer({ description: 'APPROVED servers in the category' }),
    order: Type.Integer({ description: 'Display position, ascending (ties by name)' }),
    createdAt: Timestamp,
  }),
);

export const TagListQuery = Type.Object({
  search: Type.Optional(
    Type.String({ maxLength: 100, description: 'Case-insensitive part of the name; empty means no filter' }),
  ),
  limit: Type.Optional(Limit(100)),
  offset: Type.Optional(Offset),
});

export const TagList = Type.Object({
  tags: Type.Array(ref(ServerTag)),
  total: Type.Integer(),
  meta: ref(PageMeta),
});

export const TagSearchQuery = Type.Object({
  q: Type.String({ minLength: 1, maxLength: 100, description: 'Case-insensitive part of the name' }),
  limit: Type.Optional(Limit(10)),
});

export const TagSearchResult = Type.Object({
  tags: Type.Array(
    Type.Object({ id: Id, name: Type.String(), slug: Type.String(), usageCount: Type.Integer() }),
    { description: 'Most used first' },
  ),
});

export const PopularTagsQuery = Type.Object({
  limit: Type.Optional(Limit(20)),
});

export const PopularTags = Type.Object({
  tags: Type.Array(ref(ServerTag), { description: 'Most used first, then by name' }),
});

export const CategoryList = Type.Object({
  categories: Type.Array(ref(ServerCategory), { description: 'By order, then name' }),
});

export const CreateServerTagBody = Type.Object(
  { name: Name, slug: Slug, description: Type.Optional(Nullable(ShortDescription)) },
  { additionalProperties: false },
);

export const UpdateServerTagBody = Type.Object(
  { name: Type.Optional(Name), description: Type.Optional(Nullable(ShortDescription)) },
  { additionalProperties: false },
);

const order = (description: string) => Type.Integer({ minimum: 0, maximum: 1_000_000, description });

export const CreateServerCategoryBody = Type.Object(
  {
    name: Name,
    slug: Slug,
    description: Type.Optional(Nullable(ShortDescription)),
    iconUrl: Type.Optional(Nullable(HttpUrl)),
    order: Type.Optional(order('Display position; default: after the last category')),
  },
  { additionalProperties: false },
);

export const UpdateServerCategoryBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Nullable(ShortDescription)),
    iconUrl: Type.Optional(Nullable(HttpUrl)),
    order: Type.Optional(order('Display position')),
  },
  { additionalProperties: false },
);

export const CatalogSlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 100 }) });
/**
 * The editing routes sit at the read route's position (`/server-tags/:slug`, fixed by the interface), so one path
 * holds every method; they also accept the id, which is how they were first addressed.
 */
export const CatalogKeyParams = Type.Object({
  slug: Type.String({ minLength: 1, maxLength: 100, description: 'The slug, or the id' }),
});
