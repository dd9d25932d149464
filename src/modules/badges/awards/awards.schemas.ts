import { Type } from 'typebox';
import { Id, Nullable, Timestamp, named, ref } from '../../../core/http/schemas.js';
import { Badge } from '../badges.schemas.js';

export const AwardBadgeBody = Type.Object(
  {
    badgeId: Id,
    userId: Id,
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'Why it was awarded' })),
  },
  { additionalProperties: false },
);

export const AwardResult = Type.Object({
  message: Type.String(),
  userBadge: Type.Object({ id: Id, userId: Id, badgeId: Id, awardedAt: Timestamp }),
});

export const UserBadge = named(
  'UserBadge',
  Type.Object({
    ...Badge.properties,
    awardedAt: Timestamp,
    awardedBy: Nullable(
      Type.Object(
        { id: Id, username: Type.String() },
        { description: 'Who awarded it; null when that account no longer exists' },
      ),
    ),
    reason: Nullable(Type.String()),
  }),
);

export const UserBadgeList = Type.Object({
  badges: Type.Array(ref(UserBadge), { description: 'Active badges only, newest award first' }),
});

export const BadgeHolderParams = Type.Object({ badgeId: Id, userId: Id });
export const BadgeUserParams = Type.Object({ userId: Id });
