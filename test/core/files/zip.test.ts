// streamZip: archives built from stored objects unpack to the same bytes and names, entries open one at a
// time, already-compressed kinds are stored and text is deflated, and failures reach the reader.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCompressedKind, streamZip, uniqueEntryNames } from '../../../src/core/files/zip.js';
import type { ZipEntry } from '../../../src/core/files/zip.js';
import type { Storage } from '../../../src/core/storage/storage.js';
import { generatedStream, localStorageFixture, MIB } from './fixtures.js';
import type { LocalFixture } from './fixtures.js';

const hasUnzip = (() => {
  try {
    execFileSync('unzip', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

interface CentralEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
}

/** Reads the central directory (archives without a comment and below ZIP64 sizes). */
async function centralDirectory(path: string): Promise<CentralEntry[]> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const end = Buffer.alloc(22);
    await file.read(end, 0, 22, size - 22);
    expect(end.readUInt32LE(0)).toBe(0x06054b50);
    const count = end.readUInt16LE(10);
    const directory = Buffer.alloc(end.readUInt32LE(12));
    await file.read(directory, 0, directory.length, end.readUInt32LE(16));
    const entries: CentralEntry[] = [];
    let offset = 0;
    for (let i = 0; i < count; i += 1) {
      expect(directory.readUInt32LE(offset)).toBe(0x02014b50);
      const nameLength = directory.readUInt16LE(offset + 28);
      entries.push({
        method: directory.readUInt16LE(offset + 10),
        compressedSize: directory.readUInt32LE(offset + 20),
        size: directory.readUInt32LE(offset + 24),
        name: directory.toString('utf8', offset + 46, offset + 46 + nameLength),
      });
      offset += 46 + nameLength + directory.readUInt16LE(offset + 30) + directory.readUInt16LE(offset + 32);
    }
    return entries;
  } finally {
    await file.close();
  }
}

/** SHA-256 of one entry as the system unzip extracts it, streamed. */
function unzipEntryDigest(archive: string, name: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('unzip', ['-p', archive, name], { stdio: ['ignore', 'pipe', 'inherit'] });
    const hash = createHash('sha256');
    child.stdout.on('data', (chunk: Buffer) => hash.update(chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(hash.digest('hex')) : reject(new Error(`unzip ${code}`)),
    );
  });
}

describe('isCompressedKind', () => {
  it.each([
    ['jar', true],
    ['zip', true],
    ['rar', true],
    ['7z', true],
    ['gz', true],
    ['png', true],
    ['jpg', true],
    ['webp', true],
    ['gif', true],
    ['mp4', true],
    ['webm', true],
    ['JAR', true],
    ['txt', false],
    ['md', false],
    ['json', false],
    ['yaml', false],
    ['yml', false],
    ['toml', false],
    ['xml', false],
    ['tar', false],
    ['bin', false],
  ])('%s → %s', (fileType, compressed) => {
    expect(isCompressedKind(fileType)).toBe(compressed);
  });
});

describe('uniqueEntryNames', () => {
  it('sanitizes names and numbers repeats case-insensitively, keeping the extension', () => {
    expect(
      uniqueEntryNames([
        'mod.jar',
        'README.txt',
        'readme.txt',
        'mod.jar',
        '../../etc/passwd',
        'C:\\Windows\\evil.txt',
        'C:evil.txt',
        'what?<>|*.md',
        '.hidden',
        'noext',
        'noext',
        '',
      ]),
    ).toEqual([
      'mod.jar',
      'README.txt',
      'readme (2).txt',
      'mod (2).jar',
      'passwd',
      'evil.txt',
      'C_evil.txt',
      'what_____.md',
      'hidden',
      'noext',
      'noext (2)',
      'file',
    ]);
  });

  it('does not reuse a name that already carries the suffix', () => {
    expect(uniqueEntryNames(['a (2).txt', 'a.txt', 'a.txt'])).toEqual(['a (2).txt', 'a.txt', 'a (3).txt']);
  });

  it('keeps suffixed names within 255 bytes', () => {
    const long = `${'é'.repeat(200)}.jar`;
    const [first, second] = uniqueEntryNames([long, long]);
    expect(Buffer.byteLength(first!)).toBeLessThanOrEqual(255);
    expect(Buffer.byteLength(second!)).toBeLessThanOrEqual(255);
    expect(second).toMatch(/é \(2\)\.jar$/);
  });
});

describe('streamZip from local storage', () => {
  let fixture: LocalFixture;
  let storage: Storage;
  const text = Buffer.from('Release notes\n'.repeat(20_000));
  const otherText = Buffer.from('{"pack": {"format": 15, "description": "lower-case twin"}}\n');
  let bigDigest: string;

  beforeAll(async () => {
    fixture = await localStorageFixture();
    storage = fixture.storage;
    const big = generatedStream(20 * MIB + 7);
    await storage.put('files/v1/big', big.stream, { contentType: 'application/java-archive' });
    bigDigest = big.expected().sha256;
    await storage.put('files/v1/text', text, { contentType: 'text/plain; charset=utf-8' });
    await storage.put('files/v1/other', otherText, { contentType: 'application/json; charset=utf-8' });
  });
  afterAll(() => fixture?.close());

  /** Entries over stored objects that record how many of their streams are being read at once. */
  function trackedEntries(specs: Array<{ name: string; key: string; compress: boolean; size?: number }>) {
    const opened: string[] = [];
    let openNow = 0;
    let maxOpen = 0;
    const entries: ZipEntry[] = specs.map((spec) => ({
      name: spec.name,
      compress: spec.compress,
      ...(spec.size === undefined ? {} : { size: spec.size }),
      mtime: new Date('2026-01-15T12:00:00.000Z'),
      open: async () => {
        const object = await storage.get(spec.key);
        opened.push(spec.key);
        openNow += 1;
        maxOpen = Math.max(maxOpen, openNow);
        // Done once its bytes ended (the file handle closes a moment later, on its own schedule).
        let done = false;
        const finish = () => {
          if (!done) openNow -= 1;
          done = true;
        };
        object!.body.once('end', finish).once('close', finish);
        return object!.body;
      },
    }));
    return { entries, opened, maxOpen: () => maxOpen };
  }

  it('unpacks to the same names and bytes, STORE for jars, DEFLATE for text, one open stream at a time', async () => {
    const tracked = trackedEntries([
      { name: 'mod.jar', key: 'files/v1/big', compress: false, size: 20 * MIB + 7 },
      { name: 'README.txt', key: 'files/v1/text', compress: true },
      { name: 'readme.txt', key: 'files/v1/other', compress: true, size: otherText.length },
    ]);
    const archive = streamZip(tracked.entries);
    // Nothing is opened before the archive is read.
    await new Promise((resolve) => setImmediate(resolve));
    expect(tracked.opened).toEqual([]);
    const path = join(fixture.rootDir, 'out.zip');
    await pipeline(archive, createWriteStream(path));

    expect(tracked.opened).toEqual(['files/v1/big', 'files/v1/text', 'files/v1/other']);
    expect(tracked.maxOpen()).toBe(1);

    const directory = await centralDirectory(path);
    expect(directory.map(({ name, method, size }) => ({ name, method, size }))).toEqual([
      { name: 'mod.jar', method: 0, size: 20 * MIB + 7 },
      { name: 'README.txt', method: 8, size: text.length },
      { name: 'readme (2).txt', method: 8, size: otherText.length },
    ]);
    expect(directory[1]!.compressedSize).toBeLessThan(text.length / 10);

    // The system unzip is the independent reader here (.ci/run installs it when missing).
    expect(hasUnzip, 'the system unzip is needed: apt-get install unzip').toBe(true);
    expect(execFileSync('unzip', ['-Z1', path], { encoding: 'utf8' }).trim().split('\n')).toEqual([
      'mod.jar',
      'README.txt',
      'readme (2).txt',
    ]);
    // -t checks every entry's CRC-32 and sizes.
    expect(execFileSync('unzip', ['-tq', path], { encoding: 'utf8' })).toMatch(/No errors detected/);
    expect(await unzipEntryDigest(path, 'mod.jar')).toBe(bigDigest);
    expect(await unzipEntryDigest(path, 'README.txt')).toBe(sha256(text));
    expect(await unzipEntryDigest(path, 'readme (2).txt')).toBe(sha256(otherText));
  });

  it('fails the archive when an entry cannot be opened', async () => {
    const missing = new Error('object vanished');
    const archive = streamZip([
      { name: 'a.txt', compress: true, open: async () => Readable.from([Buffer.from('a')]) },
      { name: 'b.txt', compress: true, open: () => Promise.reject(missing) },
    ]);
    await expect(pipeline(archive, createWriteStream(join(fixture.rootDir, 'broken1.zip')))).rejects.toBe(
      missing,
    );
  });

  it('fails the archive when an entry stream fails mid-way', async () => {
    const failure = new Error('S3 connection reset');
    const source = generatedStream(5 * MIB, { failAfter: 2 * MIB, failure });
    const archive = streamZip([{ name: 'big.jar', compress: false, open: async () => source.stream }]);
    await expect(pipeline(archive, createWriteStream(join(fixture.rootDir, 'broken2.zip')))).rejects.toBe(
      failure,
    );
  });

  it('fails the archive when an entry is shorter than its announced size', async () => {
    const archive = streamZip([
      { name: 'short.jar', compress: false, size: 100, open: async () => Readable.from([Buffer.alloc(60)]) },
    ]);
    await expect(pipeline(archive, createWriteStream(join(fixture.rootDir, 'broken3.zip')))).rejects.toThrow(
      /unexpected number of bytes/,
    );
  });

  it('destroys the entry being read when the reader goes away', async () => {
    const object = await storage.get('files/v1/big');
    const archive = streamZip([{ name: 'mod.jar', compress: false, open: async () => object!.body }]);
    let received = 0;
    for await (const chunk of archive) {
      received += (chunk as Buffer).length;
      if (received > MIB) break;
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(archive.destroyed).toBe(true);
    expect(object!.body.destroyed).toBe(true);
  });
});
