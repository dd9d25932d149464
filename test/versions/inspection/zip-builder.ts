// Raw ZIP bytes for the inspection tests: every field is written by hand, so an archive can declare sizes it
// does not hold, carry names no archiver would write, or need ZIP64 (more than 65,535 entries).
import { deflateRawSync } from 'node:zlib';

export interface RawEntry {
  name: string;
  data?: Buffer;
  /** DEFLATE the data (default STORE). */
  deflate?: boolean;
  /** Written instead of the real uncompressed size. */
  declaredSize?: number;
  /** General purpose flags (bit 0 encrypted); bit 11 (UTF-8) is always set. */
  flags?: number;
  /** Unix mode to record (made by Unix), e.g. 0o120777 for a symbolic link. */
  unixMode?: number;
  /** An Info-ZIP Unicode Path extra field with this name. */
  unicodeName?: string;
  /** Bytes stored as the compressed data, as-is (overrides data/deflate). */
  rawCompressed?: Buffer;
}

export interface ZipOptions {
  /** Write the ZIP64 end records (forced above 65,535 entries). */
  zip64?: boolean;
  /** Replaces the declared entry count in the end records. */
  declaredCount?: number;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function unicodePathExtra(name: string): Buffer {
  const utf8 = Buffer.from(name, 'utf8');
  const extra = Buffer.alloc(4 + 5 + utf8.length);
  extra.writeUInt16LE(0x7075, 0);
  extra.writeUInt16LE(5 + utf8.length, 2);
  extra.writeUInt8(1, 4);
  extra.writeUInt32LE(0, 5);
  utf8.copy(extra, 9);
  return extra;
}

/** A complete archive of `entries`, in order. */
export function buildZip(entries: readonly RawEntry[], options: ZipOptions = {}): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const data = entry.data ?? Buffer.alloc(0);
    const compressed = entry.rawCompressed ?? (entry.deflate === true ? deflateRawSync(data) : data);
    const method = entry.rawCompressed !== undefined || entry.deflate === true ? 8 : 0;
    const name = Buffer.from(entry.name, 'utf8');
    const extra = entry.unicodeName === undefined ? Buffer.alloc(0) : unicodePathExtra(entry.unicodeName);
    const flags = (entry.flags ?? 0) | 0x800;
    const size = entry.declaredSize ?? data.length;
    // The reader under test never checks CRCs; skipping large ones keeps multi-MiB fixtures fast.
    const crc = data.length <= 1024 * 1024 ? crc32(data) : 0;

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(Math.min(size, 0xffffffff), 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(extra.length, 28);
    locals.push(local, name, extra, compressed);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(entry.unixMode === undefined ? 20 : (3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(Math.min(size, 0xffffffff), 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt16LE(extra.length, 30);
    central.writeUInt32LE(entry.unixMode === undefined ? 0 : (entry.unixMode << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name, extra);
    offset += 30 + name.length + extra.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const count = options.declaredCount ?? entries.length;
  return Buffer.concat([...locals, directory, endRecords(count, directory.length, offset, options)]);
}

/** The end records for a directory of `size` bytes at `offset` declaring `count` entries. */
export function endRecords(count: number, size: number, offset: number, options: ZipOptions = {}): Buffer {
  const zip64 = options.zip64 === true || count > 0xffff;
  const parts: Buffer[] = [];
  if (zip64) {
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0);
    record.writeBigUInt64LE(44n, 4);
    record.writeUInt16LE(45, 12);
    record.writeUInt16LE(45, 14);
    record.writeBigUInt64LE(BigInt(count), 24);
    record.writeBigUInt64LE(BigInt(count), 32);
    record.writeBigUInt64LE(BigInt(size), 40);
    record.writeBigUInt64LE(BigInt(offset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(offset + size), 8);
    locator.writeUInt32LE(1, 16);
    parts.push(record, locator);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(zip64 ? 0xffff : count, 8);
  end.writeUInt16LE(zip64 ? 0xffff : count, 10);
  end.writeUInt32LE(zip64 ? 0xffffffff : size, 12);
  end.writeUInt32LE(zip64 ? 0xffffffff : offset, 16);
  parts.push(end);
  return Buffer.concat(parts);
}

/** A documented-format Hytale plugin manifest, merged with `overrides`. */
export function hytaleManifest(overrides: Record<string, unknown> = {}): Buffer {
  return Buffer.from(
    JSON.stringify({
      Group: 'com.example',
      Name: 'ExamplePlugin',
      Version: '1.2.3',
      Description: 'A sample plugin',
      Main: 'com.example.ExamplePlugin',
      Authors: [{ Name: 'Ada', Email: 'ada@example.com', Url: 'https://example.com' }, { Name: 'Grace' }],
      Website: 'https://example.com/plugin',
      ServerVersion: '>=0.0.1',
      Dependencies: { 'Hytale:SomePlugin': '>=1.0.0' },
      OptionalDependencies: { 'Hytale:OptionalPlugin': '*' },
      LoadBefore: { 'Hytale:AnotherPlugin': '*' },
      DisabledByDefault: false,
      IncludesAssetPack: false,
      ...overrides,
    }),
  );
}

/** A plugin JAR: the manifest (deflated) at the root and a class file. */
export function pluginJar(manifest: Buffer = hytaleManifest(), more: RawEntry[] = []): Buffer {
  return buildZip([
    { name: 'META-INF/MANIFEST.MF', data: Buffer.from('Manifest-Version: 1.0\r\n'), deflate: true },
    { name: 'manifest.json', data: manifest, deflate: true },
    { name: 'com/example/ExamplePlugin.class', data: Buffer.from([0xca, 0xfe, 0xba, 0xbe]) },
    ...more,
  ]);
}
