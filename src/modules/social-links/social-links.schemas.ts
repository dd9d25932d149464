import { Type } from 'typebox';
import { HttpUrl, Id, StringEnum, named } from '../../core/http/schemas.js';

export const SocialLink = named(
  'SocialLink',
  Type.Object({
    id: Id,
    platform: Type.String(),
    url: Type.String(),
    order: Type.Integer({ minimum: 0, description: 'Display position, from 0' }),
  }),
);

export const SocialLinkList = Type.Object({ socialLinks: Type.Array(SocialLink) });

export const USER_PLATFORMS = [
  'MICROBLOG',
  'VIDEO_SHARING',
  'LIVE_STREAMING',
  'CODE_HOSTING',
  'CHAT_COMMUNITY',
  'WEBSITE',
  'OTHER',
] as const;

export const SERVER_PLATFORMS = [
  'CHAT_COMMUNITY',
  'MICROBLOG',
  'VIDEO_SHARING',
  'LIVE_STREAMING',
  'WEBSITE',
  'OTHER',
] as const;

/** The interface names only CHAT_COMMUNITY for teams; they take the profile platforms. */
export const TEAM_PLATFORMS = USER_PLATFORMS;

export const platformSchema = (platforms: readonly string[]) => StringEnum(platforms);

export const socialLinkBody = (platforms: readonly string[]) =>
  Type.Object({ platform: platformSchema(platforms), url: HttpUrl }, { additionalProperties: false });

export const socialLinkPatchBody = (platforms: readonly string[]) =>
  Type.Object(
    { platform: Type.Optional(platformSchema(platforms)), url: Type.Optional(HttpUrl) },
    { additionalProperties: false },
  );

export const ReorderBody = Type.Object(
  { linkIds: Type.Array(Id, { maxItems: 100 }) },
  { additionalProperties: false },
);

export const MAX_SOCIAL_LINKS = 10;
