import { Type } from 'typebox';
import {
  Id,
  Name,
  Nullable,
  ShortDescription,
  Slug,
  Timestamp,
  named,
  ref,
} from '../../core/http/schemas.js';
import { ResourceTypeName } from '../resources/resources.schemas.js';

export const ResourceCategory = named(
  'ResourceCategory',
  Type.Object({
    id: Id,
    name: Type.String(),
    slug: Type.String({ description: 'Unique within its resource type' }),
    description: Nullable(Type.String()),
    resourceType: ResourceTypeName,
    usageCount: Type.Integer({ description: 'Resources in the category (any status)' }),
    order: Type.Integer({ description: 'Display position within the type' }),
    createdAt: Timestamp,
  }),
);

export const CategoryList = Type.Object({ categories: Type.Array(ref(ResourceCategory)) });
export const CategoryListQuery = Type.Object({ type: Type.Optional(ResourceTypeName) });

const Order = Type.Integer({ minimum: 0, maximum: 10_000, description: 'Display position; default: last' });

export const CreateCategoryBody = Type.Object(
  {
    name: Name,
    slug: Slug,
    resourceType: ResourceTypeName,
    description: Type.Optional(Nullable(ShortDescription)),
    order: Type.Optional(Order),
  },
  { additionalProperties: false },
);

export const UpdateCategoryBody = Type.Object(
  {
    name: Type.Optional(Name),
    slug: Type.Optional(Slug),
    description: Type.Optional(Nullable(ShortDescription)),
    order: Type.Optional(Order),
  },
  { additionalProperties: false },
);

export const CategoryIdParams = Type.Object({ id: Id });
