// API shapes of duplicates across owners (spec/extensions.md §2.4).
import { Type } from 'typebox';
import { Id, named, ref } from '../../../core/http/schemas.js';
import { ModerationQueuePosition } from '../../moderation/queue/queue.schemas.js';

/** At most this many matches on a REUPLOADED_WORK report (each direction is read with this bound). */
export const MAX_REPORT_MATCHES = 50;

export const DuplicateOf = named(
  'DuplicateOf',
  Type.Object(
    { resourceId: Id, versionId: Id, fileId: Id },
    {
      description:
        'The earlier file, on a resource of another owner, with the same SHA-512 content. Shown only to the ' +
        "file's owner side (owner, owning team's members, contributors) and moderators; absent for everyone " +
        'else and absent when the file duplicates nothing (or the original was deleted since)',
    },
  ),
);

export const VersionModeration = named(
  'VersionModeration',
  Type.Object(
    {
      ...ModerationQueuePosition.properties,
      duplicateFiles: Type.Integer({
        minimum: 0,
        description:
          "How many of the version's files duplicate another owner's files (their `duplicateOf`): a version " +
          'with duplicateFiles > 0 is never approved automatically and deserves a closer look',
      }),
    },
    {
      description:
        'Only on the single read of a PENDING version, and only for its owner side (owner, team members, ' +
        'contributors) and moderators; absent otherwise',
    },
  ),
);

export const DuplicateMatch = named(
  'DuplicateMatch',
  Type.Object({
    fileId: Id,
    versionId: Id,
    resourceId: Id,
    duplicateOf: ref(DuplicateOf),
  }),
);

export const DuplicateMatches = Type.Array(ref(DuplicateMatch), {
  maxItems: MAX_REPORT_MATCHES,
  description:
    'Only on REUPLOADED_WORK reports about a resource that still exists: files of the reported resource that ' +
    "duplicate other owners' files, then other owners' files that duplicate the reported resource's files, " +
    'each oldest upload first; at most 50 in all',
});
