// The matches a moderator sees on a REUPLOADED_WORK report (spec/extensions.md §2.4): duplicates in both
// directions around the reported resource, read from the marks set at upload.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../../core/db/schema.js';
import { MAX_REPORT_MATCHES } from './duplicates.schemas.js';
import type { DuplicateRef } from './find-duplicate.js';

type Executor = Kysely<DB> | Transaction<DB>;

export interface DuplicateMatchView extends DuplicateRef {
  duplicateOf: DuplicateRef;
}

/** Marked files joined to their own version and to their original's file and version. */
function markedFiles(db: Executor) {
  return db
    .selectFrom('version_files as copy')
    .innerJoin('resource_versions as copy_version', 'copy_version.id', 'copy.version_id')
    .innerJoin('version_files as original', 'original.id', 'copy.duplicate_of_file_id')
    .innerJoin('resource_versions as original_version', 'original_version.id', 'original.version_id')
    .select([
      'copy.id as file_id',
      'copy.version_id as version_id',
      'copy_version.resource_id as resource_id',
      'original.id as original_file_id',
      'original.version_id as original_version_id',
      'original_version.resource_id as original_resource_id',
    ])
    .orderBy('copy.uploaded_at')
    .orderBy('copy.id')
    .limit(MAX_REPORT_MATCHES);
}

/**
 * The reported resource's files that duplicate other owners' files, then other owners' files that duplicate
 * the reported resource's files; at most MAX_REPORT_MATCHES in all. Two queries, whatever the counts.
 */
export async function listDuplicateMatches(db: Executor, resourceId: string): Promise<DuplicateMatchView[]> {
  const [copies, copiedFrom] = await Promise.all([
    markedFiles(db).where('copy_version.resource_id', '=', resourceId).execute(),
    markedFiles(db).where('original_version.resource_id', '=', resourceId).execute(),
  ]);
  return [...copies, ...copiedFrom].slice(0, MAX_REPORT_MATCHES).map((row) => ({
    fileId: row.file_id,
    versionId: row.version_id,
    resourceId: row.resource_id,
    duplicateOf: {
      resourceId: row.original_resource_id,
      versionId: row.original_version_id,
      fileId: row.original_file_id,
    },
  }));
}
