import { Type } from 'typebox';
import { HttpUrl, Id, Limit, Nullable, StringEnum, Timestamp, named } from '../../core/http/schemas.js';
import { ROLES } from '../../core/auth/roles.js';
import { SocialLink } from '../social-links/social-links.schemas.js';

export const Username = Type.String({
  minLength: 3,
  maxLength: 32,
  pattern: '^[a-zA-Z0-9_]{3,32}$',
  description: 'Letters, digits and underscores; unique case-insensitively',
});

export const RoleName = StringEnum(ROLES);
export const USER_STATUSES = ['ACTIVE', 'SUSPENDED', 'BANNED'] as const;
export const UserStatusName = StringEnum(USER_STATUSES);

export const ProfileBadge = named(
  'ProfileBadge',
  Type.Object({
    id: Id,
    name: Type.String(),
    slug: Type.String(),
    description: Nullable(Type.String()),
    iconUrl: Nullable(Type.String()),
    color: Nullable(Type.String()),
    awardedAt: Timestamp,
  }),
);

/** {id, username, displayName, image}: how a user appears inside other objects. */
export const UserSummary = named(
  'UserSummary',
  Type.Object({
    id: Id,
    username: Type.String(),
    displayName: Nullable(Type.String()),
    image: Type.String({ description: 'Avatar URL; the built-in default avatar when none was uploaded' }),
  }),
);

const profileFields = {
  id: Id,
  username: Type.String(),
  displayName: Nullable(Type.String()),
  bio: Nullable(Type.String()),
  location: Nullable(Type.String()),
  website: Nullable(Type.String()),
  image: Type.String({ description: 'Avatar URL; the built-in default avatar when none was uploaded' }),
  bannerUrl: Nullable(Type.String()),
  badges: Type.Array(ProfileBadge),
  createdAt: Timestamp,
};

export const PrivateProfile = named(
  'PrivateProfile',
  Type.Object({
    ...profileFields,
    email: Type.String(),
    role: RoleName,
    status: UserStatusName,
    suspendedUntil: Nullable(Timestamp),
    followerCount: Type.Integer(),
    followingCount: Type.Integer(),
  }),
);

export const PublicProfile = named(
  'PublicProfile',
  Type.Object({
    ...profileFields,
    socialLinks: Type.Array(SocialLink),
    followerCount: Type.Integer(),
    followingCount: Type.Integer(),
    isFollowing: Type.Boolean({ description: 'Whether the caller follows this user; false when anonymous' }),
  }),
);

export const UpdateProfileBody = Type.Object(
  {
    displayName: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
    bio: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    location: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    website: Type.Optional(Nullable(HttpUrl)),
  },
  { additionalProperties: false },
);

export const UserSearchQuery = Type.Object({
  q: Type.String({
    minLength: 1,
    maxLength: 100,
    description:
      'Words of the username or display name: every word must match, the last one as a prefix unless q ends ' +
      'with a space or punctuation; case and diacritics are ignored. Words typed joined, as in `user_42`, must ' +
      'stand next to each other in that order. Results: the exact username, then all words in the username, ' +
      'then anywhere; then most followed',
  }),
  limit: Type.Optional(Limit(20)),
});

export const UserSearchResult = Type.Object({
  users: Type.Array(
    Type.Object({ ...UserSummary.properties, badges: Type.Array(ProfileBadge) }, { title: 'UserSearchHit' }),
  ),
});

export const ImageUrlResponse = Type.Object({ imageUrl: Type.String() });
export const UserIdParams = Type.Object({ userId: Id });
export const UsernameParams = Type.Object({ username: Type.String({ minLength: 1, maxLength: 64 }) });
