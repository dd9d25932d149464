// Who sees a file's `duplicateOf` (spec/extensions.md §2.4): the file's owner side and moderators. In this API
// that is exactly who sees every version of the resource (version-access.ts `scope` → 'all': owner, owning
// team's members, contributors, MODERATOR+), so callers pass that answer; the default is hidden, which is what
// any view built without the permission (lookups by hash, public lists) gets.
import type { DuplicateColumns, VersionFileRow } from '../version-files/version-files.repo.js';
import type { DuplicateRef } from './find-duplicate.js';

/** The row's duplicate original when shown and known (the list query joins its version and resource). */
export function duplicateRefOf(
  row: VersionFileRow & Partial<DuplicateColumns>,
  show: boolean,
): DuplicateRef | undefined {
  if (!show || row.duplicate_of_file_id === null) return undefined;
  if (row.duplicate_version_id == null || row.duplicate_resource_id == null) return undefined;
  return {
    resourceId: row.duplicate_resource_id,
    versionId: row.duplicate_version_id,
    fileId: row.duplicate_of_file_id,
  };
}

/** How many files show a duplicate original: the version's `moderation.duplicateFiles`. */
export const countDuplicates = (files: readonly { duplicateOf?: DuplicateRef }[]): number =>
  files.reduce((count, file) => count + (file.duplicateOf === undefined ? 0 : 1), 0);

/** The same view with every `duplicateOf` removed (a caller who may not see them). */
export function withoutDuplicates<T extends { files: { duplicateOf?: DuplicateRef }[] }>(view: T): T {
  if (countDuplicates(view.files) === 0) return view;
  return {
    ...view,
    files: view.files.map((file) => {
      if (file.duplicateOf === undefined) return file;
      const { duplicateOf: _hidden, ...rest } = file;
      return rest;
    }),
  };
}
