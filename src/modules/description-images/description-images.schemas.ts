import { Type } from 'typebox';
import { Id, Timestamp, named } from '../../core/http/schemas.js';

export const DescriptionImage = named(
  'DescriptionImage',
  Type.Object({
    id: Id,
    url: Type.String({ description: 'Embed it in the markdown description: ![alt](url)' }),
    fileName: Type.String(),
    fileSize: Type.Integer(),
    isTemporary: Type.Boolean({
      description: 'True until a saved description contains the URL; unused temporary images go after 7 days',
    }),
    isUsed: Type.Boolean({ description: "Whether the owner's saved description contains the URL now" }),
    createdAt: Timestamp,
  }),
);
