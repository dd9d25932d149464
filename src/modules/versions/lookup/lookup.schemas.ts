// Request and response shapes of the lookups by hash, the update check and the latest version (§2.1).
import { Type } from 'typebox';
import { Id, StringEnum, named, ref } from '../../../core/http/schemas.js';
import { ResourceSummary } from '../../resources/resources.schemas.js';
import { Version, VersionFile } from '../versions.schemas.js';
import { VERSION_CHANNELS } from '../versions.states.js';

export const HASH_ALGORITHMS = ['sha1', 'sha256', 'sha512'] as const;
export type HashAlgorithm = (typeof HASH_ALGORITHMS)[number];

/** Hex digits per algorithm: a hash of another length is a 400, not a miss. */
export const HEX_LENGTH: Record<HashAlgorithm, number> = { sha1: 40, sha256: 64, sha512: 128 };

/** Hashes per bulk request (spec/extensions.md §2.1). */
export const MAX_HASHES = 1000;

/** At most one entry per game version or channel a launcher could name; more is a client bug. */
const MAX_GAME_VERSION_NAMES = 100;

const Algorithm = StringEnum(HASH_ALGORITHMS, {
  description: 'The digest the hashes are of; sha512 when omitted',
});

const Hash = Type.String({
  minLength: 40,
  maxLength: 128,
  pattern: '^[0-9a-fA-F]+$',
  description:
    'Hex digest: 40 digits for sha1, 64 for sha256, 128 for sha512 (400 otherwise); any case, answered in ' +
    'lower case',
});

const Channel = StringEnum(VERSION_CHANNELS);

export const HashParams = Type.Object({ hash: Hash });
export const AlgorithmQuery = Type.Object(
  { algorithm: Type.Optional(Algorithm) },
  { additionalProperties: false },
);

const Hashes = Type.Array(Hash, {
  maxItems: MAX_HASHES,
  description: `At most ${MAX_HASHES}; repeats are answered once`,
});

export const LookupBody = Type.Object(
  { hashes: Hashes, algorithm: Type.Optional(Algorithm) },
  { additionalProperties: false },
);

export const UpdateCheckBody = Type.Object(
  {
    hashes: Hashes,
    algorithm: Type.Optional(Algorithm),
    gameVersions: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        minItems: 1,
        maxItems: MAX_GAME_VERSION_NAMES,
        description:
          'Game version names (GET /game-versions): an update must be compatible with one of them. Omitted: any ' +
          'game version. A name the site does not know matches nothing.',
      }),
    ),
    channels: Type.Optional(
      Type.Array(Channel, {
        minItems: 1,
        maxItems: 20,
        description: 'An update must be in one of these channels. Omitted: every channel.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const LatestParams = Type.Object({ resourceId: Id });
export const LatestQuery = Type.Object(
  {
    gameVersion: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'A game version name: compatible with it' }),
    ),
    channel: Type.Optional(Channel),
  },
  { additionalProperties: false },
);

export const FileMatch = named(
  'VersionFileMatch',
  Type.Object({
    file: ref(VersionFile),
    version: ref(Version),
    resource: ref(ResourceSummary),
  }),
);

export const LookupResult = Type.Object({
  files: Type.Record(Type.String(), ref(FileMatch), {
    description: 'By lower-case hash, for the hashes with a file the caller may see; the others are absent',
  }),
});

export const UpdateCheckResult = Type.Object({
  updates: Type.Record(Type.String(), ref(Version), {
    description:
      'By lower-case hash, for the known files that have a newer compatible APPROVED version; the others are ' +
      'absent',
  }),
});
