import type { VersionDependencyView } from './dependencies/dependencies.schemas.js';
import { inspectionOf } from './inspection/inspect-upload.js';
import { duplicateRefOf } from './duplicates/duplicate-view.js';
import { scanOf } from './scanning/scan-view.js';
import type { DuplicateRef } from './duplicates/find-duplicate.js';
import type { DuplicateColumns, VersionFileRow } from './version-files/version-files.repo.js';
import type { VersionGameVersionRow, VersionListRow, VersionRow } from './versions.repo.js';

const fileFields = (row: VersionFileRow) => ({
  id: row.id,
  versionId: row.version_id,
  fileName: row.file_name,
  displayName: row.display_name,
  fileSize: Number(row.file_size),
  fileType: row.file_type,
  isPrimaryFile: Boolean(row.is_primary),
  uploadedAt: row.uploaded_at,
  hashes: { sha1: row.sha1, sha256: row.sha256, sha512: row.sha512 },
  inspection: inspectionOf(row.inspection),
  scan: scanOf(row),
});
export type VersionFileView = ReturnType<typeof fileFields> & { duplicateOf?: DuplicateRef };
type FileRow = VersionFileRow & Partial<DuplicateColumns>;

/** `showDuplicate`: the caller is on the owner side or a moderator (duplicates/duplicate-view.ts). */
export function toVersionFile(row: FileRow, showDuplicate = false): VersionFileView {
  const duplicateOf = duplicateRefOf(row, showDuplicate);
  return duplicateOf === undefined ? fileFields(row) : Object.assign(fileFields(row), { duplicateOf });
}

export const toVersionListItem = (
  row: VersionListRow,
  latestId: string | null,
  files: FileRow[],
  showDuplicates = false,
) => ({
  id: row.id,
  versionNumber: row.version_number,
  name: row.name,
  channel: row.channel,
  status: row.status,
  downloads: row.downloads,
  isLatest: row.id === latestId,
  createdAt: row.created_at,
  files: files.map((file) => toVersionFile(file, showDuplicates)),
});
/** The service adds `dependencies` (dependencies/load-dependencies.ts, one query for the whole list). */
export type VersionListItemView = ReturnType<typeof toVersionListItem> & {
  dependencies: VersionDependencyView[];
};

export const toVersion = (
  row: VersionRow,
  latestId: string | null,
  files: FileRow[],
  gameVersions: VersionGameVersionRow[],
  showDuplicates = false,
) => ({
  id: row.id,
  resourceId: row.resource_id,
  versionNumber: row.version_number,
  name: row.name,
  channel: row.channel,
  status: row.status,
  changelog: row.changelog,
  downloads: row.downloads,
  isLatest: row.id === latestId,
  submissionNote: row.submission_note,
  rejectionReason: row.rejection_reason,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  compatibleGameVersions: gameVersions.map((gameVersion) => ({ id: gameVersion.id, name: gameVersion.name })),
  files: files.map((file) => toVersionFile(file, showDuplicates)),
});
export type VersionView = ReturnType<typeof toVersion> & { dependencies: VersionDependencyView[] };
