import { inspectionOf } from './inspection/inspect-upload.js';
import type { VersionFileRow } from './version-files/version-files.repo.js';
import type { VersionGameVersionRow, VersionListRow, VersionRow } from './versions.repo.js';

export const toVersionFile = (row: VersionFileRow) => ({
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
  scan: { status: row.scan_status, signature: row.scan_signature, scannedAt: row.scanned_at },
});
export type VersionFileView = ReturnType<typeof toVersionFile>;

export const toVersionListItem = (row: VersionListRow, latestId: string | null, files: VersionFileRow[]) => ({
  id: row.id,
  versionNumber: row.version_number,
  name: row.name,
  channel: row.channel,
  status: row.status,
  downloads: row.downloads,
  isLatest: row.id === latestId,
  createdAt: row.created_at,
  files: files.map(toVersionFile),
});
export type VersionListItemView = ReturnType<typeof toVersionListItem>;

export const toVersion = (
  row: VersionRow,
  latestId: string | null,
  files: VersionFileRow[],
  gameVersions: VersionGameVersionRow[],
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
  files: files.map(toVersionFile),
});
export type VersionView = ReturnType<typeof toVersion>;
