// What an archive entry may be called and what it hints at (spec/extensions.md §2.3). Names are checked the way
// the most permissive extractor would read them: both separators, and the Unicode Path extra name as well as the
// header name, since extractors disagree on which one they use.
import type { ZipDirectoryEntry } from '../../../core/files/zip-central-directory.js';

export type UnsafeNameReason =
  'PARENT_SEGMENT' | 'ABSOLUTE_PATH' | 'DRIVE_LETTER' | 'NUL_CHARACTER' | 'DOT_SEGMENT';

/** Why this name could write outside the extraction folder, or null when it cannot. */
export function unsafeNameReason(name: string): UnsafeNameReason | null {
  if (name.includes('\0')) return 'NUL_CHARACTER';
  if (name.startsWith('/') || name.startsWith('\\')) return 'ABSOLUTE_PATH';
  if (/^[a-zA-Z]:/.test(name)) return 'DRIVE_LETTER';
  for (const segment of name.split(/[\\/]/)) {
    if (segment === '..') return 'PARENT_SEGMENT';
    // Windows drops trailing dots and spaces from a path segment, so "... " or ".. ." can resolve to "..".
    if (/^[. ]+$/.test(segment) && segment.includes('..')) return 'DOT_SEGMENT';
  }
  return null;
}

export type EntryWarning = 'NESTED_ARCHIVE' | 'NATIVE_EXECUTABLE' | 'ENCRYPTED_ENTRY' | 'SYMBOLIC_LINK';

const NESTED_ARCHIVE = /\.(jar|zip|rar|7z|war|ear)$/i;
// Shared libraries are often versioned ("libfoo.so.1.2").
const NATIVE_EXECUTABLE = /\.(exe|dll|dylib|so(\.\d+)*)$/i;
const UNIX_MADE_BY = 3;
const SYMLINK_MODE = 0o120000;
const FILE_TYPE_MASK = 0o170000;

/** The warnings one entry raises (none for a directory entry). */
export function entryWarnings(entry: ZipDirectoryEntry): EntryWarning[] {
  const warnings: EntryWarning[] = [];
  if ((entry.flags & 0x1) !== 0) warnings.push('ENCRYPTED_ENTRY');
  if (
    entry.madeBy === UNIX_MADE_BY &&
    ((entry.externalAttributes >>> 16) & FILE_TYPE_MASK) === SYMLINK_MODE
  ) {
    warnings.push('SYMBOLIC_LINK');
  }
  if (entry.name.endsWith('/')) return warnings;
  if (NESTED_ARCHIVE.test(entry.name)) warnings.push('NESTED_ARCHIVE');
  if (NATIVE_EXECUTABLE.test(entry.name)) warnings.push('NATIVE_EXECUTABLE');
  return warnings;
}
