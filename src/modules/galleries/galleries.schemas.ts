import { Type } from 'typebox';
import { Id, Nullable, Timestamp, named, ref } from '../../core/http/schemas.js';

/** Gallery images per resource (DESIGN is silent): a gallery, not a file store. */
export const MAX_GALLERY_IMAGES = 50;
export const MAX_CAPTION = 500;
export const MAX_ALT_TEXT = 250;

export const GalleryImage = named(
  'GalleryImage',
  Type.Object({
    id: Id,
    resourceId: Id,
    imageUrl: Type.String(),
    thumbnailUrl: Type.String({ description: 'WEBP, fitted inside 400x300' }),
    caption: Nullable(Type.String()),
    altText: Nullable(Type.String()),
    order: Type.Integer({ minimum: 0, description: 'Display position, from 0' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  }),
);

export const GalleryImageList = Type.Object({ images: Type.Array(ref(GalleryImage)) });

export const ReplacedGalleryImage = Type.Object({ id: Id, imageUrl: Type.String(), updatedAt: Timestamp });

export const UpdateGalleryImageBody = Type.Object(
  {
    caption: Type.Optional(Nullable(Type.String({ maxLength: MAX_CAPTION }))),
    altText: Type.Optional(Nullable(Type.String({ maxLength: MAX_ALT_TEXT }))),
  },
  { additionalProperties: false },
);

export const ReorderGalleryBody = Type.Object(
  {
    imageIds: Type.Array(Id, {
      maxItems: MAX_GALLERY_IMAGES,
      description: 'Every existing image ID exactly once, in the new order (else 400)',
    }),
  },
  { additionalProperties: false },
);

export const GalleryParams = Type.Object({ resourceId: Id });
export const GalleryImageParams = Type.Object({ resourceId: Id, imageId: Id });
