import { Type } from 'typebox';
import { Id, Nullable, StringEnum, Timestamp, named, ref } from '../../core/http/schemas.js';
import { DuplicateOf, VersionModeration } from './duplicates/duplicates.schemas.js';
import { DependencyList, VersionDependency } from './dependencies/dependencies.schemas.js';
import { FileInspection } from './inspection/inspection.schemas.js';
import { FileScan } from './scanning/scan.schemas.js';
import { VERSION_CHANNELS, VERSION_STATUSES } from './versions.states.js';

export const MAX_CHANGELOG_LENGTH = 100_000;
/** Files per version (DESIGN is silent): enough for a loader per platform plus sources and docs. */
export const MAX_FILES_PER_VERSION = 20;

export const VersionFile = named(
  'VersionFile',
  Type.Object({
    id: Id,
    versionId: Id,
    fileName: Type.String({ description: 'The uploaded file name, reduced to a safe base name' }),
    displayName: Nullable(Type.String()),
    fileSize: Type.Integer({ description: 'Bytes' }),
    fileType: Type.String({
      description: 'Detected from the magic bytes, then the extension (jar, zip, png…)',
    }),
    isPrimaryFile: Type.Boolean(),
    uploadedAt: Timestamp,
    hashes: Type.Object({
      sha1: Type.String({ description: 'Hex SHA-1 of the content' }),
      sha256: Type.String({ description: 'Hex SHA-256 of the content' }),
      sha512: Nullable(
        Type.String({
          description:
            'Hex SHA-512 of the content; null only for a file stored before SHA-512 existed, until the backfill ' +
            'job has read it',
        }),
      ),
    }),
    inspection: Nullable(ref(FileInspection)),
    scan: ref(FileScan),
    duplicateOf: Type.Optional(ref(DuplicateOf)),
  }),
);

const Status = StringEnum(VERSION_STATUSES);
const Channel = StringEnum(VERSION_CHANNELS, {
  description:
    'RELEASE stable; BETA feature complete, in testing; ALPHA experimental; SNAPSHOT development build',
});

export const VersionListItem = named(
  'ResourceVersionListItem',
  Type.Object({
    id: Id,
    versionNumber: Type.String(),
    name: Nullable(Type.String()),
    channel: Channel,
    status: Status,
    downloads: Type.Integer(),
    isLatest: Type.Boolean(),
    createdAt: Timestamp,
    files: Type.Array(ref(VersionFile)),
    dependencies: Type.Array(ref(VersionDependency)),
  }),
);

export const Version = named(
  'ResourceVersion',
  Type.Object({
    id: Id,
    resourceId: Id,
    versionNumber: Type.String(),
    name: Nullable(Type.String()),
    channel: Channel,
    status: Status,
    changelog: Nullable(Type.String({ description: 'Sanitized HTML' })),
    downloads: Type.Integer(),
    isLatest: Type.Boolean(),
    submissionNote: Nullable(Type.String({ description: 'The note given with the last submit' })),
    rejectionReason: Nullable(Type.String({ description: 'The reason of the last rejection' })),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    compatibleGameVersions: Type.Array(Type.Object({ id: Id, name: Type.String() })),
    files: Type.Array(ref(VersionFile)),
    dependencies: Type.Array(ref(VersionDependency)),
    moderation: Type.Optional(ref(VersionModeration)),
  }),
);

const VersionNumber = Type.String({
  minLength: 1,
  maxLength: 50,
  description:
    'Free text such as 1.2.0 or 2.0.0-beta.1; unique within the resource (409 VERSION_NUMBER_TAKEN)',
});
const VersionName = Type.String({ maxLength: 100 });
const GameVersionIds = Type.Array(Id, {
  minItems: 1,
  maxItems: 100,
  description: 'IDs of existing game versions (GET /game-versions), at least one',
});

export const CreateVersionBody = Type.Object(
  {
    versionNumber: VersionNumber,
    name: Type.Optional(VersionName),
    channel: Channel,
    compatibleGameVersionIds: GameVersionIds,
    dependencies: Type.Optional(DependencyList),
  },
  { additionalProperties: false },
);

export const UpdateVersionBody = Type.Object(
  {
    name: Type.Optional(Nullable(VersionName)),
    channel: Type.Optional(Channel),
    compatibleGameVersionIds: Type.Optional(GameVersionIds),
    dependencies: Type.Optional(DependencyList),
  },
  { additionalProperties: false },
);

export const ChangelogBody = Type.Object(
  {
    changelog: Type.String({
      maxLength: MAX_CHANGELOG_LENGTH,
      description:
        'HTML; sanitized to a rich-text subset (p, br, strong, em, u, s, a, ul, ol, li, h1–h4, blockquote, code, ' +
        'pre, img). An empty text clears it.',
    }),
  },
  { additionalProperties: false },
);

export const SubmitVersionBody = Type.Object(
  { submissionNote: Type.Optional(Type.String({ maxLength: 1000 })) },
  { additionalProperties: false },
);

export const RejectVersionBody = Type.Object(
  { reason: Type.String({ minLength: 1, maxLength: 1000, description: 'Required (400 without it)' }) },
  { additionalProperties: false },
);

export const SetPrimaryFileBody = Type.Object({ fileId: Id }, { additionalProperties: false });

export const ResourceVersionsParams = Type.Object({ resourceId: Id });
export const VersionParams = Type.Object({ resourceId: Id, versionId: Id });
export const VersionFileParams = Type.Object({ resourceId: Id, versionId: Id, fileId: Id });
