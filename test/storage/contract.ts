// Behaviour every Storage driver must share; local.test.ts and s3.test.ts run it against their driver.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, it, expect } from 'vitest';
import type { Storage } from '../../src/core/storage/storage.js';

export const MIB = 1024 * 1024;

/** A deterministic stream of `size` bytes plus the SHA-256 of what it emitted, without holding it all. */
export function generatedStream(size: number, chunkSize = 64 * 1024): { stream: Readable; digest(): string } {
  const hash = createHash('sha256');
  let digest: string | undefined;
  async function* chunks() {
    let sent = 0;
    let seed = 0x2545f491;
    while (sent < size) {
      const length = Math.min(chunkSize, size - sent);
      const words = Buffer.allocUnsafe(Math.ceil(length / 4) * 4);
      for (let i = 0; i < words.length; i += 4) {
        seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
        words.writeUInt32LE(seed, i);
      }
      const chunk = words.subarray(0, length);
      hash.update(chunk);
      sent += chunk.length;
      yield chunk;
    }
  }
  return {
    stream: Readable.from(chunks()),
    digest: () => (digest ??= hash.digest('hex')),
  };
}

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

export async function digestOf(stream: Readable): Promise<{ size: number; digest: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of stream) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { size, digest: hash.digest('hex') };
}

/** Registers the shared checks; `storage()` is read lazily because drivers are built in beforeAll. */
export function storageContract(storage: () => Storage, options: { cdnUrl: string }): void {
  const text = Buffer.from('Hello, storage! 0123456789');

  describe('shared storage behaviour', () => {
    it('puts a buffer and reads it back with size and content type', async () => {
      const stored = await storage().put('images/u/1/hello.txt', text, {
        contentType: 'text/plain',
        immutable: true,
      });
      expect(stored).toEqual({ key: 'images/u/1/hello.txt', size: text.length });
      expect(await storage().head('images/u/1/hello.txt')).toEqual({
        size: text.length,
        contentType: 'text/plain',
        lastModified: expect.any(Date),
      });
      const object = await storage().get('images/u/1/hello.txt');
      expect(object?.size).toBe(text.length);
      expect(object?.contentType).toBe('text/plain');
      expect((await readAll(object!.body)).equals(text)).toBe(true);
    });

    it('reads inclusive byte ranges and reports the whole size', async () => {
      await storage().put('images/range.bin', text, { contentType: 'application/octet-stream' });
      const middle = await storage().get('images/range.bin', { start: 7, end: 13 });
      expect((await readAll(middle!.body)).toString()).toBe('storage');
      expect(middle?.size).toBe(text.length);
      const single = await storage().get('images/range.bin', { start: 0, end: 0 });
      expect((await readAll(single!.body)).toString()).toBe('H');
      const clamped = await storage().get('images/range.bin', { start: text.length - 3, end: 10_000 });
      expect((await readAll(clamped!.body)).toString()).toBe('789');
      await expect(
        storage().get('images/range.bin', { start: text.length, end: text.length + 5 }),
      ).rejects.toThrow(RangeError);
    });

    it('lists the objects under a prefix page by page, with size and modification time', async () => {
      const keys = ['images/listing/a.txt', 'images/listing/b/c.txt', 'images/listing/d.txt'];
      for (const key of keys) await storage().put(key, Buffer.from(key), { contentType: 'text/plain' });
      await storage().put('images/listing-elsewhere.txt', text, { contentType: 'text/plain' });
      const pages = [];
      for await (const page of storage().list({ prefix: 'images/listing/', pageSize: 2 })) pages.push(page);
      expect(pages.every((page) => page.length <= 2)).toBe(true);
      const listed = pages.flat().sort((a, b) => a.key.localeCompare(b.key));
      expect(listed.map((object) => object.key)).toEqual(keys);
      expect(listed.map((object) => object.size)).toEqual(keys.map((key) => key.length));
      expect(listed.every((object) => object.lastModified instanceof Date)).toBe(true);
      const none = [];
      for await (const page of storage().list({ prefix: 'images/nothing-here/', pageSize: 2 }))
        none.push(page);
      expect(none).toEqual([]);
    });

    it('overwrites an object, content type included', async () => {
      await storage().put('images/over.dat', Buffer.from('first'), { contentType: 'text/plain' });
      await storage().put('images/over.dat', Buffer.from('second!'), { contentType: 'application/json' });
      expect(await storage().head('images/over.dat')).toEqual({
        size: 7,
        contentType: 'application/json',
        lastModified: expect.any(Date),
      });
      expect((await readAll((await storage().get('images/over.dat'))!.body)).toString()).toBe('second!');
    });

    it('stores an empty object', async () => {
      expect(await storage().put('images/empty', Buffer.alloc(0), { contentType: 'text/plain' })).toEqual({
        key: 'images/empty',
        size: 0,
      });
      expect(await storage().head('images/empty')).toEqual({
        size: 0,
        contentType: 'text/plain',
        lastModified: expect.any(Date),
      });
    });

    it('streams a ~20 MiB body in and out', async () => {
      const size = 20 * MIB + 12_345;
      const source = generatedStream(size);
      const stored = await storage().put('files/v1/big.bin', source.stream, {
        contentType: 'application/zip',
      });
      expect(stored.size).toBe(size);
      expect(await storage().head('files/v1/big.bin')).toEqual({
        size,
        contentType: 'application/zip',
        lastModified: expect.any(Date),
      });
      const read = await digestOf((await storage().get('files/v1/big.bin'))!.body);
      expect(read).toEqual({ size, digest: source.digest() });
      const tail = await storage().get('files/v1/big.bin', { start: size - 10, end: size - 1 });
      expect((await readAll(tail!.body)).length).toBe(10);
    });

    it('fails a put whose source stream errors, leaving no object behind', async () => {
      async function* broken() {
        yield Buffer.alloc(1024, 1);
        throw new Error('source broke');
      }
      await expect(
        storage().put('images/broken.bin', Readable.from(broken()), { contentType: 'text/plain' }),
      ).rejects.toThrow();
      expect(await storage().head('images/broken.bin')).toBeUndefined();
    });

    it('treats missing objects as undefined and deleting them as a no-op', async () => {
      expect(await storage().get('images/missing.png')).toBeUndefined();
      expect(await storage().head('images/missing.png')).toBeUndefined();
      await expect(storage().delete('images/missing.png')).resolves.toBeUndefined();
      await storage().put('images/doomed.png', text, { contentType: 'image/png' });
      await storage().delete('images/doomed.png');
      expect(await storage().head('images/doomed.png')).toBeUndefined();
      expect(await storage().get('images/doomed.png')).toBeUndefined();
    });

    it('rejects invalid keys as programming errors', async () => {
      for (const key of ['../x', '/abs', 'a//b', 'a\\b', './a', 'a/', '', 'a b', 'images/../../etc/passwd']) {
        await expect(storage().put(key, text, { contentType: 'text/plain' })).rejects.toThrow(
          /Invalid storage key/,
        );
        await expect(storage().get(key)).rejects.toThrow(/Invalid storage key/);
        await expect(storage().head(key)).rejects.toThrow(/Invalid storage key/);
        await expect(storage().delete(key)).rejects.toThrow(/Invalid storage key/);
        expect(() => storage().publicUrl(key)).toThrow(/Invalid storage key/);
      }
    });

    it('maps keys to public URLs under the CDN URL', () => {
      expect(storage().publicUrl('images/u/1/a.webp')).toBe(`${options.cdnUrl}/images/u/1/a.webp`);
    });

    it('only signs keys under files/', async () => {
      await expect(
        storage().signedUrl('images/u/1/a.webp', { expiresIn: 60, downloadName: 'a.webp' }),
      ).rejects.toThrow();
    });

    it('answers the readiness probe', async () => {
      await expect(storage().ping()).resolves.toBeUndefined();
    });
  });
}
