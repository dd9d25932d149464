// storeStream against both drivers: hashes and size of large streams, detection before the write, the size
// limit and failing sources, each leaving nothing behind in storage.
import { createHash } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeStream } from '../../../src/core/files/hashing-upload.js';
import { AppError } from '../../../src/core/http/errors.js';
import type { Storage } from '../../../src/core/storage/storage.js';
import { digestOf, generatedStream, localStorageFixture, MIB, s3StorageFixture } from './fixtures.js';
import type { LocalFixture, S3Fixture } from './fixtures.js';

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const EMPTY_SHA256 = createHash('sha256').digest('hex');
const EMPTY_SHA1 = createHash('sha1').digest('hex');
const EMPTY_SHA512 = createHash('sha512').digest('hex');

function uploadBehaviour(driver: string, storage: () => Storage, leftovers: () => Promise<string[]>): void {
  describe(`storeStream on ${driver} storage`, () => {
    it('stores a 50 MiB stream with its size, SHA-256, SHA-1 and SHA-512, typed before the write', async () => {
      const source = generatedStream(50 * MIB + 123, { prefix: ZIP_MAGIC });
      const stored = await storeStream(storage(), 'files/v1/big', source.stream, {
        maxBytes: 100 * MIB,
        fileName: 'mod.jar',
      });
      const expected = source.expected();
      expect(stored).toMatchObject({
        size: expected.size,
        sha256: expected.sha256,
        sha1: expected.sha1,
        sha512: expected.sha512,
        fileType: 'jar',
        contentType: 'application/java-archive',
      });
      expect(stored.head.length).toBe(4100);
      expect(stored.head.subarray(0, 4).equals(ZIP_MAGIC)).toBe(true);
      expect(await storage().head('files/v1/big')).toEqual({
        size: expected.size,
        contentType: 'application/java-archive',
        lastModified: expect.any(Date),
      });
      const object = await storage().get('files/v1/big');
      expect(await digestOf(object!.body)).toEqual({ size: expected.size, sha256: expected.sha256 });
    });

    it('keeps a small file whole as its head and detects text', async () => {
      const text = Buffer.from('# Changelog\n\n- Fixed the thing ✓\n');
      const stored = await storeStream(storage(), 'files/v1/readme', Readable.from([text]), {
        maxBytes: MIB,
        fileName: 'README.md',
      });
      expect(stored).toEqual({
        size: text.length,
        sha256: createHash('sha256').update(text).digest('hex'),
        sha1: createHash('sha1').update(text).digest('hex'),
        sha512: createHash('sha512').update(text).digest('hex'),
        head: text,
        fileType: 'md',
        contentType: 'text/markdown; charset=utf-8',
      });
      expect((await storage().head('files/v1/readme'))?.contentType).toBe('text/markdown; charset=utf-8');
    });

    it('stores an empty stream, and a caller-chosen content type wins over detection', async () => {
      const stored = await storeStream(storage(), 'files/v1/empty', Readable.from([]), {
        maxBytes: MIB,
        fileName: 'notes.txt',
        contentType: 'application/octet-stream',
      });
      expect(stored).toEqual({
        size: 0,
        sha256: EMPTY_SHA256,
        sha1: EMPTY_SHA1,
        sha512: EMPTY_SHA512,
        head: Buffer.alloc(0),
        fileType: 'txt',
        contentType: 'application/octet-stream',
      });
      expect(await storage().head('files/v1/empty')).toEqual({
        size: 0,
        contentType: 'application/octet-stream',
        lastModified: expect.any(Date),
      });
    });

    it('accepts exactly maxBytes', async () => {
      const source = generatedStream(2 * MIB);
      const stored = await storeStream(storage(), 'files/v1/exact', source.stream, { maxBytes: 2 * MIB });
      expect(stored.size).toBe(2 * MIB);
      expect(stored.sha256).toBe(source.expected().sha256);
    });

    it.each([
      ['well past the head', 3 * MIB, MIB],
      ['before the head is complete', 10_000, 100],
    ])('refuses a stream over maxBytes (%s) with 413 and leaves no object', async (_case, size, maxBytes) => {
      const before = await leftovers();
      const source = generatedStream(size);
      const error = await storeStream(storage(), 'files/v1/too-big', source.stream, { maxBytes }).catch(
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ statusCode: 413, code: 'PAYLOAD_TOO_LARGE' });
      expect(await storage().head('files/v1/too-big')).toBeUndefined();
      expect(await leftovers()).toEqual(before);
    });

    it.each([
      ['mid-way', 5 * MIB],
      ['before the head is complete', 0],
    ])('rethrows a failing source (%s) and leaves no object', async (_case, failAfter) => {
      const before = await leftovers();
      const failure = new Error('connection reset by peer');
      const source = generatedStream(20 * MIB, { failAfter, failure });
      await expect(
        storeStream(storage(), 'files/v1/broken', source.stream, { maxBytes: 100 * MIB }),
      ).rejects.toBe(failure);
      expect(await storage().head('files/v1/broken')).toBeUndefined();
      expect(await leftovers()).toEqual(before);
    });

    it('fails, leaving no object, when the source closes before its end', async () => {
      const before = await leftovers();
      const source = new Readable({ read() {} });
      source.push(Buffer.alloc(10_000, 1));
      setImmediate(() => source.destroy());
      await expect(
        storeStream(storage(), 'files/v1/closed', source, { maxBytes: MIB }),
      ).rejects.toMatchObject({
        code: 'ERR_STREAM_PREMATURE_CLOSE',
      });
      expect(await storage().head('files/v1/closed')).toBeUndefined();
      expect(await leftovers()).toEqual(before);
    });
  });
}

describe('local driver', () => {
  let fixture: LocalFixture;
  beforeAll(async () => {
    fixture = await localStorageFixture();
  });
  afterAll(() => fixture?.close());

  uploadBehaviour(
    'local',
    () => fixture.storage,
    async () => (await fixture.files()).sort(),
  );

  it('deletes the object and rethrows when storage fails, leaving the source to the caller', async () => {
    const deleted: string[] = [];
    const diskFull = new Error('ENOSPC: no space left on device');
    const real = fixture.storage;
    const failing: Storage = {
      ...real,
      async put(key, body, options) {
        // Let a few MiB reach the disk, then fail as a full disk would.
        let seen = 0;
        const breaker = new Transform({
          transform(chunk: Buffer, _encoding, callback) {
            seen += chunk.length;
            callback(seen > 3 * MIB ? diskFull : null, chunk);
          },
        });
        return real.put(key, (body as Readable).pipe(breaker), options);
      },
      async delete(key) {
        deleted.push(key);
        await real.delete(key);
      },
    };
    const source = generatedStream(10 * MIB);
    await expect(storeStream(failing, 'files/v2/full', source.stream, { maxBytes: 100 * MIB })).rejects.toBe(
      diskFull,
    );
    expect(deleted).toEqual(['files/v2/full']);
    expect(await real.head('files/v2/full')).toBeUndefined();
    expect(source.stream.destroyed).toBe(false);
    // Still readable by the caller, which drains it (as readStreamedUpload does with a multipart part).
    source.stream.resume();
    await new Promise((resolve) => source.stream.once('end', resolve));
    expect(source.expected().size).toBe(10 * MIB);
  });
});

describe('S3 driver (s3rver)', () => {
  let fixture: S3Fixture;
  beforeAll(async () => {
    fixture = await s3StorageFixture();
  });
  afterAll(() => fixture?.close());

  // Leftovers in the bucket are checked through head(key) in each test.
  uploadBehaviour(
    's3',
    () => fixture.storage,
    async () => [],
  );
});
