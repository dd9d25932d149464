import { Type } from 'typebox';
import { Id, Nullable, Timestamp, named, ref } from '../../core/http/schemas.js';

export const GameVersion = named(
  'GameVersion',
  Type.Object({
    id: Id,
    name: Type.String({ description: 'What the resource list filter `versions` matches' }),
    releaseOrder: Type.Integer({ description: 'Higher is newer' }),
    releasedAt: Nullable(Timestamp),
    createdAt: Timestamp,
  }),
);

export const GameVersionList = Type.Object({ gameVersions: Type.Array(ref(GameVersion)) });

const VersionName = Type.String({ minLength: 1, maxLength: 50, pattern: '^\\S(.*\\S)?$' });
const ReleaseOrder = Type.Integer({
  minimum: 0,
  maximum: 1_000_000,
  description: 'Default: after the newest',
});

export const CreateGameVersionBody = Type.Object(
  {
    name: VersionName,
    releaseOrder: Type.Optional(ReleaseOrder),
    releasedAt: Type.Optional(Nullable(Timestamp)),
  },
  { additionalProperties: false },
);

export const UpdateGameVersionBody = Type.Object(
  {
    name: Type.Optional(VersionName),
    releaseOrder: Type.Optional(ReleaseOrder),
    releasedAt: Type.Optional(Nullable(Timestamp)),
  },
  { additionalProperties: false },
);

export const GameVersionIdParams = Type.Object({ id: Id });
