import { Type } from 'typebox';
import { HttpUrl, Id, StringEnum, Timestamp, named, ref } from '../../../core/http/schemas.js';

export const EXTERNAL_LINK_TYPES = [
  'CODE_HOSTING',
  'CHAT_COMMUNITY',
  'WEBSITE',
  'DOCUMENTATION',
  'OTHER',
] as const;
export type ExternalLinkType = (typeof EXTERNAL_LINK_TYPES)[number];

export const MAX_EXTERNAL_LINKS = 20;

export const ExternalLink = named(
  'ResourceExternalLink',
  Type.Object({
    id: Id,
    title: Type.String(),
    url: Type.String(),
    type: StringEnum(EXTERNAL_LINK_TYPES),
    order: Type.Integer({ minimum: 0, description: 'Display position, from 0' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  }),
);

const Title = Type.String({ minLength: 1, maxLength: 100 });

export const CreateExternalLinkBody = Type.Object(
  {
    title: Title,
    url: HttpUrl,
    type: StringEnum(EXTERNAL_LINK_TYPES, { description: 'CODE_HOSTING is e.g. a GitHub repository' }),
  },
  { additionalProperties: false },
);

export const UpdateExternalLinkBody = Type.Object(
  { title: Type.Optional(Title), url: Type.Optional(HttpUrl) },
  { additionalProperties: false },
);

export const ReorderExternalLinksBody = Type.Object(
  { linkIds: Type.Array(Id, { maxItems: 100, description: 'Every existing link ID exactly once' }) },
  { additionalProperties: false },
);

export const ExternalLinkList = Type.Object({ externalLinks: Type.Array(ref(ExternalLink)) });
export const ExternalLinkParams = Type.Object({ id: Id, linkId: Id });
