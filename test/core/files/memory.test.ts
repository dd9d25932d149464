// Memory stays flat whatever the size (DESIGN §10): a 200 MiB upload and a 200 MiB archive pass through the
// local driver while the process's resident memory is sampled. These bound memory, not time. They live in their
// own file so the measurements are not disturbed by other tests' allocations.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeStream } from '../../../src/core/files/hashing-upload.js';
import { streamZip } from '../../../src/core/files/zip.js';
import { generatedStream, hashingSink, localStorageFixture, MIB, peakRssGrowth } from './fixtures.js';
import type { LocalFixture } from './fixtures.js';

const LIMIT = 64 * MIB;
const asMib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`;

describe('memory stays flat', () => {
  let fixture: LocalFixture;
  beforeAll(async () => {
    fixture = await localStorageFixture();
    // Warm up both code paths so module loading and JIT are not counted as growth.
    await storeStream(fixture.storage, 'files/warm/up', generatedStream(4 * MIB).stream, {
      maxBytes: 8 * MIB,
    });
    const warm = hashingSink();
    await pipeline(
      streamZip([
        {
          name: 'a.jar',
          compress: false,
          open: async () => (await fixture.storage.get('files/warm/up'))!.body,
        },
        {
          name: 'b.txt',
          compress: true,
          open: async () => Readable.from([Buffer.from('warm '.repeat(1000))]),
        },
      ]),
      warm.sink,
    );
  });
  afterAll(() => fixture?.close());

  it('storing a 200 MiB stream grows RSS by less than 64 MiB', async ({ annotate }) => {
    const source = generatedStream(200 * MIB, { chunkSize: 256 * 1024 });
    const { result, peakGrowth, endGrowth } = await peakRssGrowth(() =>
      storeStream(fixture.storage, 'files/big/upload', source.stream, {
        maxBytes: 256 * MIB,
        fileName: 'big.bin',
      }),
    );
    expect(result.size).toBe(200 * MIB);
    expect(result.sha256).toBe(source.expected().sha256);
    await annotate(`upload 200 MiB: peak RSS +${asMib(peakGrowth)}, at end +${asMib(endGrowth)}`);
    expect(peakGrowth).toBeLessThan(LIMIT);
  });

  it('streaming a 200 MiB archive to a hashing sink grows RSS by less than 64 MiB', async ({ annotate }) => {
    const parts = [
      { key: 'files/zip/one', size: 120 * MIB, compress: false, name: 'one.jar' },
      { key: 'files/zip/two', size: 70 * MIB, compress: false, name: 'two.zip' },
    ];
    for (const part of parts) {
      await fixture.storage.put(part.key, generatedStream(part.size).stream, {
        contentType: 'application/zip',
      });
    }
    const lines = Buffer.from('A line of a changelog that deflates well.\n'.repeat(1024));
    const textSize = 10 * MIB - ((10 * MIB) % lines.length);
    const text = Readable.from(
      (function* () {
        for (let sent = 0; sent < textSize; sent += lines.length) yield Buffer.from(lines);
      })(),
    );
    await fixture.storage.put('files/zip/notes', text, { contentType: 'text/plain; charset=utf-8' });

    const entries = [
      ...parts.map((part) => ({
        name: part.name,
        size: part.size,
        compress: part.compress,
        open: async () => (await fixture.storage.get(part.key))!.body,
      })),
      {
        name: 'notes.txt',
        size: textSize,
        compress: true,
        open: async () => (await fixture.storage.get('files/zip/notes'))!.body,
      },
    ];
    const { sink, result } = hashingSink();
    const { peakGrowth, endGrowth } = await peakRssGrowth(() => pipeline(streamZip(entries), sink));
    // Both stored entries pass whole; the text shrinks.
    expect(result().size).toBeGreaterThan(190 * MIB);
    expect(result().size).toBeLessThan(195 * MIB);
    await annotate(`zip 200 MiB: peak RSS +${asMib(peakGrowth)}, at end +${asMib(endGrowth)}`);
    expect(peakGrowth).toBeLessThan(LIMIT);
  });
});
