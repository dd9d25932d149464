// Streams for the file tests: deterministic content of any size, generated chunk by chunk so no test holds a
// whole file, with reference hashes computed independently of the code under test.
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { createLocalStorage } from '../../../src/core/storage/local.js';
import type { Storage } from '../../../src/core/storage/storage.js';
// @ts-expect-error -- s3rver ships no type declarations; the shape used here is declared below.
import S3rverModule from 's3rver';
import { createS3Storage } from '../../../src/core/storage/s3.js';

export const MIB = 1024 * 1024;

export interface Generated {
  stream: Readable;
  /** Hashes of everything the stream emitted; read them after it ended. */
  expected(): { size: number; sha256: string; sha1: string; sha512: string };
}

export interface GenerateOptions {
  chunkSize?: number;
  /** Bytes the content starts with (a magic number, a text header…). */
  prefix?: Buffer;
  /** After this many bytes the stream fails with `failure` instead of going on. */
  failAfter?: number;
  failure?: Error;
}

/** `size` bytes: the prefix, then a fixed pseudo-random block stamped with each chunk's index. */
export function generatedStream(size: number, options: GenerateOptions = {}): Generated {
  const chunkSize = options.chunkSize ?? 64 * 1024;
  const sha256 = createHash('sha256');
  const sha1 = createHash('sha1');
  const sha512 = createHash('sha512');
  let emitted = 0;
  let digests: { sha256: string; sha1: string; sha512: string } | undefined;
  const block = Buffer.alloc(chunkSize);
  let seed = 0x9e3779b9;
  for (let i = 0; i + 4 <= chunkSize; i += 4) {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    block.writeUInt32LE(seed, i);
  }
  async function* chunks() {
    let index = 0;
    while (emitted < size) {
      if (options.failAfter !== undefined && emitted >= options.failAfter) {
        throw options.failure ?? new Error('source failed');
      }
      const length = Math.min(chunkSize, size - emitted);
      // A fresh buffer per chunk: storage may still hold earlier chunks while later ones are produced.
      const chunk = Buffer.from(block.subarray(0, length));
      chunk.writeUInt32LE(index++, 0);
      if (emitted === 0 && options.prefix)
        options.prefix.copy(chunk, 0, 0, Math.min(length, options.prefix.length));
      sha256.update(chunk);
      sha1.update(chunk);
      sha512.update(chunk);
      emitted += chunk.length;
      yield chunk;
    }
  }
  return {
    stream: Readable.from(chunks(), { objectMode: false }),
    expected: () => ({
      size: emitted,
      ...(digests ??= {
        sha256: sha256.digest('hex'),
        sha1: sha1.digest('hex'),
        sha512: sha512.digest('hex'),
      }),
    }),
  };
}

/** A sink that hashes what it receives and keeps nothing else. */
export function hashingSink(): { sink: Writable; result(): { size: number; sha256: string } } {
  const hash = createHash('sha256');
  let size = 0;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      size += chunk.length;
      callback();
    },
  });
  let digest: string | undefined;
  return { sink, result: () => ({ size, sha256: (digest ??= hash.digest('hex')) }) };
}

export async function digestOf(stream: Readable): Promise<{ size: number; sha256: string }> {
  const { sink, result } = hashingSink();
  for await (const chunk of stream) {
    await new Promise<void>((resolve, reject) =>
      sink.write(chunk as Buffer, (error) => (error ? reject(error) : resolve())),
    );
  }
  return result();
}

export interface LocalFixture {
  storage: Storage;
  rootDir: string;
  /** Every file under the storage root, temp files included. */
  files(): Promise<string[]>;
  close(): Promise<void>;
}

export async function localStorageFixture(): Promise<LocalFixture> {
  const rootDir = await mkdtemp(join(tmpdir(), 'files-local-'));
  const storage = createLocalStorage({
    rootDir,
    cdnUrl: 'http://api.test/cdn',
    secret: 'files-test-secret-0123456789-abcdefghij',
  });
  return {
    storage,
    rootDir,
    async files() {
      const entries = await readdir(rootDir, { recursive: true, withFileTypes: true });
      return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
    },
    close: () => rm(rootDir, { recursive: true, force: true }),
  };
}

interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
}
type S3rverConstructor = new (options: Record<string, unknown>) => S3rverInstance;
const S3rver = S3rverModule as S3rverConstructor;

export interface S3Fixture {
  storage: Storage;
  close(): Promise<void>;
}

/** An in-process s3rver with one bucket, as test/storage/s3.test.ts runs it. */
export async function s3StorageFixture(): Promise<S3Fixture> {
  const directory = await mkdtemp(join(tmpdir(), 'files-s3-'));
  const bucket = 'files-bucket';
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run();
  const storage = createS3Storage({
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    bucket,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    forcePathStyle: true,
    cdnUrl: 'https://cdn.example.test',
  });
  return {
    storage,
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** Samples RSS while `run` works and reports the growth of the peak over the RSS before it started. */
export async function peakRssGrowth<T>(
  run: () => Promise<T>,
): Promise<{ result: T; peakGrowth: number; endGrowth: number }> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  try {
    const result = await run();
    const after = process.memoryUsage().rss;
    peak = Math.max(peak, after);
    return { result, peakGrowth: peak - before, endGrowth: after - before };
  } finally {
    clearInterval(sampler);
  }
}
