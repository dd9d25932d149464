import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
// @ts-expect-error -- s3rver ships no type declarations; the shape used here is declared below.
import S3rverModule from 's3rver';
import { createS3Storage } from '../../src/core/storage/s3.js';
import type { Storage } from '../../src/core/storage/storage.js';
import { digestOf, generatedStream, MIB, storageContract } from './contract.js';

interface S3rverEvent {
  Records: { eventName: string; s3: { object: { key: string; size: number } } }[];
}
interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
  on(event: 'event', listener: (event: S3rverEvent) => void): void;
}
type S3rverConstructor = new (options: Record<string, unknown>) => S3rverInstance;
const S3rver = S3rverModule as S3rverConstructor;

const bucket = 'test-bucket';
const cdnUrl = 'https://cdn.example.test';
const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

describe('S3 storage (s3rver)', () => {
  let directory: string;
  let server: S3rverInstance;
  let endpoint: string;
  let storage: Storage;
  const events: { name: string; key: string }[] = [];

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'storage-s3-'));
    server = new S3rver({
      port: 0,
      address: '127.0.0.1',
      silent: true,
      directory,
      configureBuckets: [{ name: bucket, configs: [] }],
    });
    server.on('event', (event) => {
      for (const record of event.Records) events.push({ name: record.eventName, key: record.s3.object.key });
    });
    const { port } = await server.run();
    endpoint = `http://127.0.0.1:${port}`;
    storage = createS3Storage({
      endpoint,
      region: 'us-east-1',
      bucket,
      ...credentials,
      forcePathStyle: true,
      cdnUrl,
    });
  });

  afterAll(async () => {
    await server?.close();
    if (directory !== undefined) await rm(directory, { recursive: true, force: true });
  });

  storageContract(() => storage, { cdnUrl });

  it('is the s3 driver', () => {
    expect(storage.driver).toBe('s3');
  });

  it('sends a large stream as a multipart upload', async () => {
    const size = 20 * MIB + 1;
    const source = generatedStream(size, 1000 * 1000);
    const stored = await storage.put('files/multi/part.bin', source.stream, {
      contentType: 'application/zip',
    });
    expect(stored.size).toBe(size);
    // s3rver reports a completed multipart upload as ObjectCreated:Post and a single PUT as ObjectCreated:Put.
    expect(events.filter((event) => event.key === 'files/multi/part.bin').map((event) => event.name)).toEqual(
      ['ObjectCreated:Post'],
    );
    expect(await digestOf((await storage.get('files/multi/part.bin'))!.body)).toEqual({
      size,
      digest: source.digest(),
    });
    await storage.put('images/single.png', Buffer.from('png'), { contentType: 'image/png' });
    expect(events.filter((event) => event.key === 'images/single.png').map((event) => event.name)).toEqual([
      'ObjectCreated:Put',
    ]);
  });

  it('marks immutable objects as cacheable forever', async () => {
    await storage.put('images/cache/a.png', Buffer.from('png'), {
      contentType: 'image/png',
      immutable: true,
    });
    await storage.put('files/cache/b.zip', Buffer.from('zip'), { contentType: 'application/zip' });
    const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
    try {
      const image = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: 'images/cache/a.png' }));
      expect(image.CacheControl).toBe('public, max-age=31536000, immutable');
      const file = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: 'files/cache/b.zip' }));
      expect(file.CacheControl).toBeUndefined();
    } finally {
      client.destroy();
    }
  });

  it('presigns a GET with expiry and attachment disposition', async () => {
    const body = Buffer.from('zip bytes for the presigned download');
    await storage.put('files/v9/f9', body, { contentType: 'application/zip' });
    const url = await storage.signedUrl('files/v9/f9', { expiresIn: 3600, downloadName: 'Große Karte.zip' });
    const parsed = new URL(url);
    expect(parsed.pathname).toBe(`/${bucket}/files/v9/f9`);
    expect(parsed.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(parsed.searchParams.get('X-Amz-Expires')).toBe('3600');
    expect(url).toContain('X-Amz-Expires=3600');
    const disposition = `attachment; filename="Gro_e Karte.zip"; filename*=UTF-8''Gro%C3%9Fe%20Karte.zip`;
    expect(parsed.searchParams.get('response-content-disposition')).toBe(disposition);

    // s3rver accepts any SigV4 signature without checking it, so this proves the URL shape and the
    // response overrides, not that the signature is valid; real S3 / MinIO verify it.
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toBe(disposition);
    expect(Buffer.from(await response.arrayBuffer()).equals(body)).toBe(true);
  });
});
