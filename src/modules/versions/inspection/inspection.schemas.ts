// The file object's `inspection` (spec/extensions.md §2.3). Owned by the inspection work.
import { Type } from 'typebox';
import type { Static } from 'typebox';
import { Nullable, StringEnum, named } from '../../../core/http/schemas.js';

export const INSPECTION_FORMATS = ['hytale-plugin', 'archive', 'other'] as const;

export const INSPECTION_WARNINGS = [
  'NESTED_ARCHIVE',
  'NATIVE_EXECUTABLE',
  'MANIFEST_INVALID',
  'ENCRYPTED_ENTRY',
  'SYMBOLIC_LINK',
  'DUPLICATE_ENTRY',
] as const;
export type InspectionWarning = (typeof INSPECTION_WARNINGS)[number];

const Manifest = Type.Object(
  {
    name: Nullable(Type.String()),
    version: Nullable(Type.String()),
    group: Nullable(Type.String()),
    description: Nullable(Type.String()),
    authors: Type.Array(Type.String()),
    dependencies: Type.Array(
      Type.Object({
        name: Type.String({
          description: 'The plugin identifier as the manifest writes it, e.g. "Group:Name"',
        }),
        versionRange: Nullable(Type.String()),
        optional: Type.Boolean({ description: 'From OptionalDependencies rather than Dependencies' }),
      }),
    ),
    serverVersion: Nullable(Type.String()),
  },
  { description: 'The Hytale plugin manifest.json at the archive root (keys read case-insensitively)' },
);
export type ManifestView = Static<typeof Manifest>;

export const FileInspection = named(
  'FileInspection',
  Type.Object({
    format: StringEnum(INSPECTION_FORMATS),
    entries: Type.Integer({ description: 'Entries in the archive (0 for a file that is not an archive)' }),
    uncompressedSize: Type.Integer({
      description: 'Bytes, as the archive declares them; the file size for a file that is not an archive',
    }),
    manifest: Nullable(Manifest),
    warnings: Type.Array(StringEnum(INSPECTION_WARNINGS), {
      description:
        'NESTED_ARCHIVE: a .jar/.zip/.rar/.7z/.war/.ear inside; NATIVE_EXECUTABLE: a .exe/.dll/.so/.dylib ' +
        'inside; MANIFEST_INVALID: a manifest.json at the root that is unreadable, larger than 1 MiB, not JSON ' +
        'or without a Name; ENCRYPTED_ENTRY: an entry is encrypted (its content cannot be checked); ' +
        'SYMBOLIC_LINK: a Unix symbolic link entry; DUPLICATE_ENTRY: two entries have the same name ' +
        '(extractors disagree on which wins). Each code appears once.',
    }),
  }),
);
export type FileInspectionView = Static<typeof FileInspection>;

export const VersionSuggestions = named(
  'VersionSuggestions',
  Type.Object({
    versionNumber: Nullable(Type.String({ description: "The manifest's Version" })),
    dependencies: Type.Array(
      Type.Object({
        externalName: Type.String({
          description: 'The manifest\'s dependency identifier, e.g. "Group:Name"',
        }),
        resourceId: Type.Optional(
          Type.String({ description: 'A resource the caller may see whose slug or name matches, if any' }),
        ),
        type: StringEnum(['REQUIRED', 'OPTIONAL'] as const, {
          description: 'REQUIRED from Dependencies, OPTIONAL from OptionalDependencies',
        }),
        versionRange: Nullable(Type.String()),
      }),
    ),
    gameVersions: Type.Array(Type.Object({ id: Type.String(), name: Type.String() }), {
      description: 'Game versions whose name equals the manifest ServerVersion (ranges are not resolved)',
    }),
  }),
);
export type VersionSuggestionsView = Static<typeof VersionSuggestions>;
