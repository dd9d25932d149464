// The inspection reads an archive with a fixed number of byte-range reads whatever its entry count (one GET per
// entry would be ruinous on S3), and never the whole file. Counted on the app's real storage (local or S3).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectFileType } from '../../../src/core/files/file-kind.js';
import type { ByteRange, Storage } from '../../../src/core/storage/storage.js';
import { inspectStoredFile } from '../../../src/modules/versions/inspection/inspect-upload.js';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { buildZip, hytaleManifest } from './zip-builder.js';

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

/** The app's storage, recording every get. */
function countingStorage(storage: Storage) {
  const gets: Array<ByteRange | undefined> = [];
  const counted: Storage = Object.create(storage) as Storage;
  counted.get = (key, range) => {
    gets.push(range);
    return storage.get(key, range);
  };
  return { counted, gets };
}

async function stored(key: string, data: Buffer) {
  await t.app.context.storage.put(key, data, { contentType: 'application/zip' });
  const head = data.subarray(0, 4100);
  const kind = await detectFileType(head, 'archive.zip');
  return { size: data.length, sha1: '', sha256: '', sha512: '', head, ...kind };
}

describe('range reads', () => {
  it('reads the tail, the directory and the manifest: three ranged GETs for 5,000 entries and 4 MiB of data', async () => {
    const entries = Array.from({ length: 5000 }, (_, index) => ({
      name: `assets/${index}.json`,
      data: Buffer.from(`{"n":${index}}`),
    }));
    const data = buildZip([
      { name: 'big.bin', data: Buffer.alloc(4 * 1024 * 1024, 1) },
      ...entries,
      { name: 'manifest.json', data: hytaleManifest(), deflate: true },
    ]);
    const key = `files/range-test/${Date.now()}`;
    const { counted, gets } = countingStorage(t.app.context.storage);
    const inspection = await inspectStoredFile(counted, key, await stored(key, data));
    expect(inspection).toMatchObject({ format: 'hytale-plugin', entries: 5002 });
    expect(gets).toHaveLength(3);
    for (const range of gets) expect(range).toBeDefined();
    const bytesRead = gets.reduce((sum, range) => sum + range!.end - range!.start + 1, 0);
    expect(bytesRead).toBeLessThan(data.length / 4);
    await t.app.context.storage.delete(key);
  });

  it('an archive without a manifest costs two reads', async () => {
    const data = buildZip(
      Array.from({ length: 300 }, (_, index) => ({ name: `f${index}`, data: Buffer.from('x') })),
    );
    const key = `files/range-test/${Date.now()}-b`;
    const { counted, gets } = countingStorage(t.app.context.storage);
    expect((await inspectStoredFile(counted, key, await stored(key, data))).entries).toBe(300);
    expect(gets).toHaveLength(2);
    await t.app.context.storage.delete(key);
  });
});
