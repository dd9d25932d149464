// Inspection at upload (spec/extensions.md §2.3). Owned by the inspection work: SCAFFOLD, to be built.
import type { StoredStream } from '../../../core/files/hashing-upload.js';
import type { Storage } from '../../../core/storage/storage.js';
import type { FileInspectionView } from './inspection.schemas.js';

/**
 * Inspects the object just stored at `key` (reading what it needs from storage, never extracting to disk).
 * Throws 400 UNSAFE_ARCHIVE for a refused archive (the caller deletes the object). Returns what the file
 * object shows as `inspection`.
 */
export function inspectStoredFile(
  _storage: Storage,
  _key: string,
  _stored: StoredStream,
): Promise<FileInspectionView | null> {
  return Promise.resolve(null);
}

/** The stored JSON back to the API shape; null when the file was stored before inspection existed. */
export function inspectionOf(json: string | null): FileInspectionView | null {
  return json === null ? null : (JSON.parse(json) as FileInspectionView);
}
