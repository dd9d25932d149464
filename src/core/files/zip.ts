// Builds a version's ZIP on the fly from object storage (interface "File behavior" 4, DESIGN §10): entries are
// opened one at a time, only when the archive reaches them, and flow through with backpressure, so memory stays
// flat and only one storage stream is open at once.
import type { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { safeFileName } from '../http/multipart.js';

export interface ZipEntry {
  /** Name inside the archive; sanitized and made unique by streamZip. */
  name: string;
  /** Opens the entry's bytes; called only when the archive reaches this entry. */
  open: () => Promise<Readable>;
  /** Expected byte count: when given, a stream of another length fails the archive instead of corrupting it. */
  size?: number;
  /** DEFLATE when true, STORE when false (see isCompressedKind). */
  compress: boolean;
  /** Modification time recorded for the entry (e.g. the upload time); defaults to the archive's. */
  mtime?: Date;
}

export interface StreamZipOptions {
  /**
   * Modification time of entries that have none; without either, yazl records the current time. Pass the
   * injected clock's time (or the files' upload times) for reproducible archives.
   */
  mtime?: Date;
}

/** Kinds whose content is already compressed: deflating them again costs CPU and saves nothing. */
const COMPRESSED_KINDS: ReadonlySet<string> = new Set([
  'jar',
  'zip',
  'rar',
  '7z',
  'gz',
  'tar.gz',
  'png',
  'jpg',
  'webp',
  'gif',
  'mp4',
  'webm',
]);

/** Whether a file of this detected `fileType` should be STOREd rather than DEFLATEd in an archive. */
export const isCompressedKind = (fileType: string): boolean => COMPRESSED_KINDS.has(fileType.toLowerCase());

// Characters Windows refuses in file names; yazl also takes a leading "C:" for an absolute path.
const WINDOWS_RESERVED = /[<>:|?*]/g;
const MAX_NAME_BYTES = 255;

function splitExtension(name: string): { stem: string; extension: string } {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? { stem: name.slice(0, dot), extension: name.slice(dot) } : { stem: name, extension: '' };
}

/** Cuts `text` to at most `maxBytes` of UTF-8 without splitting a code point. */
function truncateUtf8(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    bytes += Buffer.byteLength(char, 'utf8');
    if (bytes > maxBytes) break;
    end += char.length;
  }
  return text.slice(0, end);
}

/**
 * Safe, unique archive names in entry order: safeFileName, Windows-reserved characters replaced, and a repeated
 * name (compared case-insensitively, as Windows and macOS extract them) becomes `name (2).ext`, `name (3).ext`….
 */
export function uniqueEntryNames(names: readonly string[]): string[] {
  const taken = new Set<string>();
  return names.map((raw) => {
    const base = safeFileName(raw.replace(WINDOWS_RESERVED, '_'));
    let candidate = base;
    for (let copy = 2; taken.has(candidate.toLowerCase()); copy += 1) {
      const { stem, extension } = splitExtension(base);
      const suffix = ` (${copy})${extension}`;
      candidate = truncateUtf8(stem, MAX_NAME_BYTES - Buffer.byteLength(suffix, 'utf8')).trimEnd() + suffix;
    }
    taken.add(candidate.toLowerCase());
    return candidate;
  });
}

/**
 * A readable ZIP archive of `entries`, in order. Errors (an entry that fails to open, a failing or short
 * stream) destroy the returned stream with that error; destroying the returned stream (the client went away)
 * destroys the entry stream being read.
 */
export function streamZip(entries: readonly ZipEntry[], options: StreamZipOptions = {}): Readable {
  const zip = new ZipFile();
  // yazl's output is a PassThrough; its typings only say NodeJS.ReadableStream.
  const output = zip.outputStream as Readable;
  let current: Readable | undefined;

  const fail = (error: unknown) => {
    current?.destroy();
    output.destroy(error instanceof Error ? error : new Error(String(error)));
  };
  zip.on('error', fail);
  output.once('close', () => current?.destroy());

  const names = uniqueEntryNames(entries.map((entry) => entry.name));
  entries.forEach((entry, index) => {
    const mtime = entry.mtime ?? options.mtime;
    const entryOptions = {
      compress: entry.compress,
      ...(mtime === undefined ? {} : { mtime }),
      ...(entry.size === undefined ? {} : { size: entry.size }),
    };
    zip.addReadStreamLazy(names[index]!, entryOptions, (deliver) => {
      entry.open().then(
        (stream) => {
          if (output.destroyed) {
            stream.destroy();
            return;
          }
          current = stream;
          // yazl pipes the stream without watching it: an error or early close would hang the archive.
          stream.on('error', fail);
          stream.once('close', () => {
            if (!stream.readableEnded) fail(new Error(`Entry ${names[index]} closed before its end`));
          });
          deliver(null, stream);
        },
        (error: unknown) => fail(error),
      );
    });
  });
  zip.end();
  return output;
}
