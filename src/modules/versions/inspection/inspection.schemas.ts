// The file object's `inspection` (spec/extensions.md §2.3). Owned by the inspection work.
import { Type } from 'typebox';
import type { Static } from 'typebox';
import { Nullable, StringEnum, named } from '../../../core/http/schemas.js';

export const INSPECTION_FORMATS = ['hytale-plugin', 'archive', 'other'] as const;

export const FileInspection = named(
  'FileInspection',
  Type.Object({
    format: StringEnum(INSPECTION_FORMATS),
    entries: Type.Integer({ description: 'Entries in the archive (0 for a file that is not an archive)' }),
    uncompressedSize: Type.Integer({ description: 'Bytes, as the archive declares them' }),
    manifest: Nullable(
      Type.Object({
        name: Nullable(Type.String()),
        version: Nullable(Type.String()),
        group: Nullable(Type.String()),
        description: Nullable(Type.String()),
        authors: Type.Array(Type.String()),
        dependencies: Type.Array(Type.Object({ name: Type.String(), versionRange: Nullable(Type.String()) })),
        serverVersion: Nullable(Type.String()),
      }),
    ),
    warnings: Type.Array(
      Type.String({ description: 'NESTED_ARCHIVE, NATIVE_EXECUTABLE, MANIFEST_INVALID…' }),
    ),
  }),
);
export type FileInspectionView = Static<typeof FileInspection>;
