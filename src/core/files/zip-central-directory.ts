// Reads a ZIP archive's directory from object storage with byte-range reads only (spec/extensions.md §2.3):
// one read of the tail for the END OF CENTRAL DIRECTORY (and its ZIP64 form), then the central directory as ONE
// streamed range read parsed record by record, so memory stays at one record whatever the entry count and S3
// sees a fixed number of GETs, never one per entry. Nothing is extracted; entry contents are read only on
// request (readEntryBytes, one range read) and bounded by the caller.
import type { Readable } from 'node:stream';
import type { Storage } from '../storage/storage.js';

/** The archive is not a readable ZIP (truncated, inconsistent offsets, bad signatures). */
export class ZipFormatError extends Error {
  override name = 'ZipFormatError';
}

/** Byte-range access to one stored object. Ranges are inclusive, as in HTTP and Storage.get. */
export interface RangeSource {
  readonly size: number;
  read(start: number, end: number): Promise<Buffer>;
  stream(start: number, end: number): Promise<Readable>;
}

/** A RangeSource over `key` in storage; throws ZipFormatError if the object vanished. */
export function storageRangeSource(storage: Storage, key: string, size: number): RangeSource {
  async function stream(start: number, end: number): Promise<Readable> {
    const object = await storage.get(key, { start, end });
    if (object === undefined) throw new ZipFormatError(`The object ${key} is missing`);
    return object.body;
  }
  return {
    size,
    stream,
    async read(start, end) {
      const chunks: Buffer[] = [];
      let length = 0;
      for await (const chunk of await stream(start, end)) {
        chunks.push(chunk as Buffer);
        length += (chunk as Buffer).length;
      }
      const bytes = Buffer.concat(chunks, length);
      if (bytes.length !== end - start + 1) throw new ZipFormatError('Short read from storage');
      return bytes;
    },
  };
}

export interface ZipDirectoryEnd {
  /** Total entries the archive declares (ZIP64 value when present). */
  entryCount: number;
  directoryOffset: number;
  directorySize: number;
}

export interface ZipDirectoryEntry {
  /** The name as UTF-8 (flag bit 11) or byte-for-byte Latin-1 otherwise (same ASCII, enough for path checks). */
  name: string;
  /** The Info-ZIP Unicode Path extra field's name, which some extractors prefer over `name`. */
  unicodeName: string | null;
  flags: number;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
  /** Upper byte of "version made by": 3 is Unix (then externalAttributes >>> 16 is the file mode). */
  madeBy: number;
  externalAttributes: number;
}

const EOCD_SIGNATURE = 0x06054b50;
const EOCD_LENGTH = 22;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_LOCATOR_LENGTH = 20;
const ZIP64_EOCD_SIGNATURE = 0x06064b50;
const ZIP64_EOCD_LENGTH = 56;
const CENTRAL_SIGNATURE = 0x02014b50;
const CENTRAL_LENGTH = 46;
const LOCAL_SIGNATURE = 0x04034b50;
const LOCAL_LENGTH = 30;
const MAX_COMMENT = 0xffff;
const ZIP64_EXTRA = 0x0001;
const UNICODE_PATH_EXTRA = 0x7075;

const u64 = (buffer: Buffer, offset: number): number => Number(buffer.readBigUInt64LE(offset));

/**
 * Finds the END OF CENTRAL DIRECTORY (the last signature whose comment ends exactly at the end of the file) and
 * its ZIP64 record when the archive has one. Two range reads at most; the entry count is known before a byte of
 * the directory is read, so the caller can refuse a huge directory without reading it.
 */
export async function readZipDirectoryEnd(source: RangeSource): Promise<ZipDirectoryEnd> {
  const { size } = source;
  if (size < EOCD_LENGTH) throw new ZipFormatError('Too short to be a ZIP archive');
  const tailStart = Math.max(0, size - EOCD_LENGTH - MAX_COMMENT);
  const tail = await source.read(tailStart, size - 1);
  let eocd = -1;
  for (let at = tail.length - EOCD_LENGTH; at >= 0; at -= 1) {
    if (
      tail.readUInt32LE(at) === EOCD_SIGNATURE &&
      at + EOCD_LENGTH + tail.readUInt16LE(at + 20) === tail.length
    ) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) throw new ZipFormatError('No end of central directory record');
  let entryCount = tail.readUInt16LE(eocd + 10);
  let directorySize = tail.readUInt32LE(eocd + 12);
  let directoryOffset = tail.readUInt32LE(eocd + 16);
  let directoryLimit = tailStart + eocd;

  const locator = eocd - ZIP64_LOCATOR_LENGTH;
  if (locator >= 0 && tail.readUInt32LE(locator) === ZIP64_LOCATOR_SIGNATURE) {
    const recordOffset = u64(tail, locator + 8);
    if (recordOffset + ZIP64_EOCD_LENGTH > tailStart + locator) {
      throw new ZipFormatError('ZIP64 end of central directory out of bounds');
    }
    const record =
      recordOffset >= tailStart
        ? tail.subarray(recordOffset - tailStart, recordOffset - tailStart + ZIP64_EOCD_LENGTH)
        : await source.read(recordOffset, recordOffset + ZIP64_EOCD_LENGTH - 1);
    if (record.readUInt32LE(0) !== ZIP64_EOCD_SIGNATURE) {
      throw new ZipFormatError('Bad ZIP64 end of central directory signature');
    }
    entryCount = u64(record, 32);
    directorySize = u64(record, 40);
    directoryOffset = u64(record, 48);
    directoryLimit = recordOffset;
  }
  if (directoryOffset + directorySize > directoryLimit) {
    throw new ZipFormatError('The central directory lies outside the archive');
  }
  return { entryCount, directoryOffset, directorySize };
}

function parseExtras(extra: Buffer, entry: ZipDirectoryEntry): void {
  for (let at = 0; at + 4 <= extra.length;) {
    const id = extra.readUInt16LE(at);
    const length = extra.readUInt16LE(at + 2);
    const data = extra.subarray(at + 4, at + 4 + length);
    if (data.length !== length) throw new ZipFormatError('Truncated extra field');
    if (id === ZIP64_EXTRA) {
      // Present in this order, and only for the fields whose 32-bit value is saturated.
      let field = 0;
      const next = (): number => {
        if (field + 8 > data.length) throw new ZipFormatError('Truncated ZIP64 extra field');
        const value = u64(data, field);
        field += 8;
        return value;
      };
      if (entry.uncompressedSize === 0xffffffff) entry.uncompressedSize = next();
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = next();
      if (entry.localHeaderOffset === 0xffffffff) entry.localHeaderOffset = next();
    } else if (id === UNICODE_PATH_EXTRA && length > 5) {
      entry.unicodeName = data.subarray(5).toString('utf8');
    }
    at += 4 + length;
  }
}

function parseCentralRecord(record: Buffer): ZipDirectoryEntry {
  const flags = record.readUInt16LE(8);
  const nameLength = record.readUInt16LE(28);
  const extraLength = record.readUInt16LE(30);
  const rawName = record.subarray(CENTRAL_LENGTH, CENTRAL_LENGTH + nameLength);
  const entry: ZipDirectoryEntry = {
    name: rawName.toString((flags & 0x800) !== 0 ? 'utf8' : 'latin1'),
    unicodeName: null,
    flags,
    method: record.readUInt16LE(10),
    compressedSize: record.readUInt32LE(20),
    uncompressedSize: record.readUInt32LE(24),
    localHeaderOffset: record.readUInt32LE(42),
    madeBy: record.readUInt8(5),
    externalAttributes: record.readUInt32LE(38),
  };
  parseExtras(record.subarray(CENTRAL_LENGTH + nameLength, CENTRAL_LENGTH + nameLength + extraLength), entry);
  return entry;
}

/**
 * The central directory's entries in order, in batches (one per chunk read: an async step per entry would cost
 * more than parsing it), parsed from one streamed range read. Stopping the iteration early
 * (break, throw) closes the read. Throws ZipFormatError when the records do not match the declared count and size.
 */
export async function* readZipDirectory(
  source: RangeSource,
  end: ZipDirectoryEnd,
): AsyncGenerator<ZipDirectoryEntry[]> {
  if (end.entryCount * CENTRAL_LENGTH > end.directorySize) {
    throw new ZipFormatError('The central directory is smaller than its declared entries');
  }
  if (end.entryCount === 0) return;
  const body = await source.stream(end.directoryOffset, end.directoryOffset + end.directorySize - 1);
  let pending: Buffer = Buffer.alloc(0);
  let seen = 0;
  let consumed = 0;
  try {
    for await (const chunk of body) {
      pending = pending.length === 0 ? (chunk as Buffer) : Buffer.concat([pending, chunk as Buffer]);
      let at = 0;
      const batch: ZipDirectoryEntry[] = [];
      while (pending.length - at >= CENTRAL_LENGTH) {
        if (pending.readUInt32LE(at) !== CENTRAL_SIGNATURE) {
          throw new ZipFormatError(`Bad central directory record at entry ${seen}`);
        }
        const length =
          CENTRAL_LENGTH +
          pending.readUInt16LE(at + 28) +
          pending.readUInt16LE(at + 30) +
          pending.readUInt16LE(at + 32);
        if (pending.length - at < length) break;
        seen += 1;
        if (seen > end.entryCount) throw new ZipFormatError('More entries than the archive declares');
        batch.push(parseCentralRecord(pending.subarray(at, at + length)));
        at += length;
      }
      if (batch.length > 0) yield batch;
      consumed += at;
      // A copy: the leftover is at most one record, and a slice would pin the whole chunk.
      pending = at === pending.length ? Buffer.alloc(0) : Buffer.from(pending.subarray(at));
    }
  } finally {
    body.destroy();
  }
  if (seen !== end.entryCount || consumed + pending.length !== end.directorySize || pending.length !== 0) {
    throw new ZipFormatError(`The central directory holds ${seen} of ${end.entryCount} declared entries`);
  }
}

/**
 * The entry's stored (possibly compressed) bytes, in one range read covering the local header, its variable
 * fields and the data. The caller bounds entry.compressedSize before calling.
 */
export async function readEntryBytes(source: RangeSource, entry: ZipDirectoryEntry): Promise<Buffer> {
  const start = entry.localHeaderOffset;
  const end = Math.min(source.size - 1, start + LOCAL_LENGTH + 2 * 0xffff + entry.compressedSize - 1);
  if (start + LOCAL_LENGTH > source.size) throw new ZipFormatError('Local header out of bounds');
  const bytes = await source.read(start, end);
  if (bytes.readUInt32LE(0) !== LOCAL_SIGNATURE) throw new ZipFormatError('Bad local header signature');
  const dataStart = LOCAL_LENGTH + bytes.readUInt16LE(26) + bytes.readUInt16LE(28);
  const data = bytes.subarray(dataStart, dataStart + entry.compressedSize);
  if (data.length !== entry.compressedSize) throw new ZipFormatError('Entry data out of bounds');
  return data;
}
