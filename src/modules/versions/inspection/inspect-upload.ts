// Inspection at upload (spec/extensions.md §2.3): right after storage, a JAR/ZIP's directory is read from
// storage with a fixed number of byte-range reads (zip-central-directory.ts), never extracted and never read
// whole. Unsafe names and bomb-like sizes refuse the upload (400 UNSAFE_ARCHIVE; the caller removes the object);
// the root manifest.json is parsed; the rest becomes warnings.
import { createHash } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import type { StoredStream } from '../../../core/files/hashing-upload.js';
import {
  ZipFormatError,
  readEntryBytes,
  readZipDirectory,
  readZipDirectoryEnd,
  storageRangeSource,
} from '../../../core/files/zip-central-directory.js';
import type { RangeSource, ZipDirectoryEntry } from '../../../core/files/zip-central-directory.js';
import { badRequest } from '../../../core/http/errors.js';
import type { Storage } from '../../../core/storage/storage.js';
import { entryWarnings, unsafeNameReason } from './entry-rules.js';
import type { FileInspectionView, InspectionWarning, ManifestView } from './inspection.schemas.js';
import { MAX_MANIFEST_BYTES, parseManifest } from './manifest.js';

const MiB = 1024 * 1024;
export const ARCHIVE_LIMITS = {
  maxEntries: 100_000,
  maxUncompressedBytes: 2 * 1024 * MiB,
  maxRatio: 100,
  /** The ratio rule applies only above this many uncompressed bytes (small, very compressible files are fine). */
  ratioFloorBytes: 100 * MiB,
} as const;

const MANIFEST_NAME = 'manifest.json';
const STORED = 0;
const DEFLATED = 8;
const MAX_NAME_IN_DETAILS = 200;

const unsafe = (message: string, details: Record<string, unknown>) =>
  badRequest(message, details, 'UNSAFE_ARCHIVE');

/** ZIP local header ("PK\3\4") or an empty archive's end record ("PK\5\6"). */
function looksLikeZip(stored: StoredStream): boolean {
  if (stored.fileType === 'zip' || stored.fileType === 'jar') return true;
  const head = stored.head;
  return head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5);
}

function refuseName(entry: ZipDirectoryEntry): void {
  for (const name of [entry.name, entry.unicodeName]) {
    if (name === null) continue;
    const reason = unsafeNameReason(name);
    if (reason !== null) {
      throw unsafe(`The archive has an entry whose name escapes the extraction folder`, {
        reason,
        entry: name.slice(0, MAX_NAME_IN_DETAILS),
      });
    }
  }
}

function refuseSizes(uncompressed: number, archiveBytes: number, final: boolean): void {
  const { maxUncompressedBytes, maxRatio, ratioFloorBytes } = ARCHIVE_LIMITS;
  if (uncompressed > maxUncompressedBytes) {
    throw unsafe('The archive declares more than 2 GiB of uncompressed content', {
      reason: 'TOO_LARGE',
      limit: maxUncompressedBytes,
    });
  }
  // Checked once the total is known: the ratio only grows as entries are added, but the verdict needs the sum.
  if (final && uncompressed > ratioFloorBytes && uncompressed > maxRatio * archiveBytes) {
    throw unsafe('The archive expands more than 100 times to over 100 MiB', {
      reason: 'COMPRESSION_RATIO',
      ratio: Math.floor(uncompressed / Math.max(1, archiveBytes)),
      limit: maxRatio,
    });
  }
}

async function readManifest(source: RangeSource, entry: ZipDirectoryEntry): Promise<ManifestView | null> {
  const encrypted = (entry.flags & 0x1) !== 0;
  if (encrypted || entry.compressedSize > MAX_MANIFEST_BYTES || entry.uncompressedSize > MAX_MANIFEST_BYTES) {
    return null;
  }
  if (entry.method !== STORED && entry.method !== DEFLATED) return null;
  let data: Buffer;
  try {
    data = await readEntryBytes(source, entry);
  } catch (error) {
    if (error instanceof ZipFormatError) return null;
    throw error;
  }
  if (entry.method === STORED) return parseManifest(data);
  try {
    // The declared size may lie: inflation itself is bounded (over the bound, zlib throws).
    return parseManifest(inflateRawSync(data, { maxOutputLength: MAX_MANIFEST_BYTES }));
  } catch {
    return null;
  }
}

/**
 * What the duplicate check remembers of a name: long names by digest, so 100,000 names of up to 64 KiB each
 * cannot pin gigabytes while the directory streams by.
 */
const nameKey = (name: string): string =>
  name.length <= 128 ? name : `#${createHash('sha256').update(name).digest('base64')}`;

async function inspectArchive(source: RangeSource): Promise<FileInspectionView> {
  const end = await readZipDirectoryEnd(source);
  // Before a byte of the directory is read.
  if (end.entryCount > ARCHIVE_LIMITS.maxEntries) {
    throw unsafe('The archive has more than 100,000 entries', {
      reason: 'TOO_MANY_ENTRIES',
      entries: end.entryCount,
      limit: ARCHIVE_LIMITS.maxEntries,
    });
  }
  const warnings = new Set<InspectionWarning>();
  const names = new Set<string>();
  let uncompressedSize = 0;
  let manifestEntry: ZipDirectoryEntry | undefined;
  for await (const batch of readZipDirectory(source, end)) {
    for (const entry of batch) {
      refuseName(entry);
      uncompressedSize += entry.uncompressedSize;
      refuseSizes(uncompressedSize, source.size, false);
      for (const warning of entryWarnings(entry)) warnings.add(warning);
      const seenAs = nameKey(entry.name);
      if (names.has(seenAs)) warnings.add('DUPLICATE_ENTRY');
      else names.add(seenAs);
      // The first one, as a reader that stops at the first match would take it.
      if (entry.name === MANIFEST_NAME && manifestEntry === undefined) manifestEntry = entry;
    }
  }
  refuseSizes(uncompressedSize, source.size, true);

  let manifest: ManifestView | null = null;
  if (manifestEntry !== undefined) {
    manifest = await readManifest(source, manifestEntry);
    if (manifest === null) warnings.add('MANIFEST_INVALID');
  }
  return {
    format: manifest === null ? 'archive' : 'hytale-plugin',
    entries: end.entryCount,
    uncompressedSize,
    manifest,
    warnings: [...warnings],
  };
}

/**
 * Inspects the object just stored at `key` (reading what it needs from storage, never extracting to disk).
 * Throws 400 UNSAFE_ARCHIVE for a refused archive (the caller deletes the object), including a file that says
 * it is a ZIP but whose directory cannot be read: what cannot be checked cannot be trusted. Returns what the
 * file object shows as `inspection`.
 */
export async function inspectStoredFile(
  storage: Storage,
  key: string,
  stored: StoredStream,
): Promise<FileInspectionView> {
  if (!looksLikeZip(stored)) {
    return { format: 'other', entries: 0, uncompressedSize: stored.size, manifest: null, warnings: [] };
  }
  try {
    return await inspectArchive(storageRangeSource(storage, key, stored.size));
  } catch (error) {
    if (error instanceof ZipFormatError) {
      throw unsafe('The file looks like a ZIP archive but its directory cannot be read', {
        reason: 'CORRUPT_ARCHIVE',
        problem: error.message,
      });
    }
    throw error;
  }
}

/** The stored JSON back to the API shape; null when the file was stored before inspection existed. */
export function inspectionOf(json: string | null): FileInspectionView | null {
  return json === null ? null : (JSON.parse(json) as FileInspectionView);
}
