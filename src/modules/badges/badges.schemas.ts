import { Type } from 'typebox';
import {
  HttpUrl,
  Id,
  Name,
  Nullable,
  ShortDescription,
  Slug,
  Timestamp,
  named,
  ref,
} from '../../core/http/schemas.js';

const HexColor = Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: 'Hex color, #RRGGBB' });

export const Badge = named(
  'Badge',
  Type.Object({
    id: Id,
    name: Type.String(),
    slug: Type.String(),
    description: Nullable(Type.String()),
    iconUrl: Nullable(Type.String()),
    color: Nullable(Type.String({ description: 'Hex color, #RRGGBB' })),
    isActive: Type.Boolean({
      description: 'Inactive badges cannot be awarded and are not shown on profiles',
    }),
    awardedCount: Type.Integer({ description: 'How many users hold the badge' }),
    createdAt: Timestamp,
  }),
);

export const BadgeList = Type.Object({ badges: Type.Array(ref(Badge), { description: 'By name' }) });

export const BadgeListQuery = Type.Object({
  isActive: Type.Optional(Type.Boolean({ description: 'Only active (true) or inactive (false) badges' })),
});

export const CreateBadgeBody = Type.Object(
  {
    name: Name,
    slug: Slug,
    description: Type.Optional(Nullable(ShortDescription)),
    iconUrl: Type.Optional(Nullable(HttpUrl)),
    color: Type.Optional(Nullable(HexColor)),
    isActive: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false },
);

export const CreatedBadge = Type.Object({
  id: Id,
  name: Type.String(),
  slug: Type.String(),
  createdAt: Timestamp,
});

export const UpdateBadgeBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Nullable(ShortDescription)),
    iconUrl: Type.Optional(Nullable(HttpUrl)),
    color: Type.Optional(Nullable(HexColor)),
    isActive: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const BadgeIdParams = Type.Object({ badgeId: Id });
export const BadgeSlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 100 }) });
