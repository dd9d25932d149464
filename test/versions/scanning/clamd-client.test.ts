// The INSTREAM client (src/core/files/clamd.ts) against a real clamd on a unix socket and on TCP: verdicts, the
// stream limit, an absent daemon, CLAMAV_URL validation, and memory that stays flat however large the file.
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { ClamdError, parseClamdAddress, ping, scanStream } from '../../../src/core/files/clamd.js';
import { INFECTED_SAMPLE, SAMPLE_SIGNATURE, startClamd } from '../../helpers/clamd.js';
import type { Clamd } from '../../helpers/clamd.js';

const LIMIT = 1024 * 1024;
const options = { timeoutMs: 10_000 };
let unix: Clamd;
let tcp: Clamd;

beforeAll(async () => {
  [unix, tcp] = await Promise.all([
    startClamd({ streamMaxBytes: 200 * 1024 * 1024 }),
    startClamd({ streamMaxBytes: LIMIT, tcp: true }),
  ]);
});
afterAll(async () => {
  await Promise.all([unix?.close(), tcp?.close()]);
});

/** `count` fresh chunks of `size` bytes, made as they are read (like a storage stream). */
function generated(count: number, size = 64 * 1024): Readable {
  return Readable.from(
    (function* () {
      for (let index = 0; index < count; index += 1) yield Buffer.alloc(size, index % 251);
    })(),
  );
}

describe.each([
  ['unix socket', () => unix],
  ['tcp', () => tcp],
])('scanStream over %s', (_name, daemon) => {
  it('answers PING and tells a clean stream from the signed sample', async () => {
    const address = parseClamdAddress(daemon().url);
    await ping(address, options);
    expect(await scanStream(address, Readable.from([Buffer.from('clean bytes\n')]), options)).toEqual({
      result: 'CLEAN',
    });
    expect(await scanStream(address, Readable.from([INFECTED_SAMPLE]), options)).toEqual({
      result: 'INFECTED',
      signature: `${SAMPLE_SIGNATURE}.UNOFFICIAL`,
    });
    // The sample split across frames is still the sample.
    const split = Readable.from([INFECTED_SAMPLE.subarray(0, 10), INFECTED_SAMPLE.subarray(10)]);
    expect((await scanStream(address, split, options)).result).toBe('INFECTED');
    expect(await scanStream(address, Readable.from([]), options)).toEqual({ result: 'CLEAN' });
  });
});

describe('the stream limit', () => {
  it("a stream past clamd's StreamMaxLength is TOO_LARGE, one at the limit is scanned", async () => {
    const address = parseClamdAddress(tcp.url);
    expect(await scanStream(address, generated(16), options)).toEqual({ result: 'CLEAN' });
    for (const chunks of [17, 64, 300]) {
      expect(await scanStream(address, generated(chunks), options)).toEqual({ result: 'TOO_LARGE' });
    }
    // Chunks larger than a frame are cut into frames.
    expect(await scanStream(address, generated(8, 512 * 1024), options)).toEqual({ result: 'TOO_LARGE' });
  });
});

describe('an absent or wrong peer', () => {
  it('no daemon at the address: ClamdError UNREACHABLE, and the source is released', async () => {
    const source = generated(4);
    const missing = parseClamdAddress(`${unix.url}.missing`);
    await expect(scanStream(missing, source, options)).rejects.toMatchObject({ kind: 'UNREACHABLE' });
    expect(source.destroyed).toBe(true);
    await expect(ping(missing, options)).rejects.toBeInstanceOf(ClamdError);
  });
});

describe('CLAMAV_URL', () => {
  it('accepts tcp://host:port and absolute socket paths; refuses the rest at start-up', () => {
    const config = (url: string) => loadConfig({ DATA_DIR: '/tmp', SECRET: 'x'.repeat(32), CLAMAV_URL: url });
    expect(config('tcp://127.0.0.1:3310').clamav?.address).toEqual({
      kind: 'tcp',
      host: '127.0.0.1',
      port: 3310,
    });
    expect(config('tcp://[::1]:3310').clamav?.address).toEqual({ kind: 'tcp', host: '::1', port: 3310 });
    expect(config('/run/clamav/clamd.ctl').clamav?.address).toEqual({
      kind: 'unix',
      path: '/run/clamav/clamd.ctl',
    });
    expect(loadConfig({ DATA_DIR: '/tmp', SECRET: 'x'.repeat(32) }).clamav).toBeUndefined();
    for (const bad of [
      'clamd:3310',
      'http://127.0.0.1:3310',
      'tcp://127.0.0.1',
      'tcp://host:0',
      'tcp://h:99999',
      'tcp://h:3310/x',
      'relative/clamd.sock',
      'tcp://:3310',
    ]) {
      expect(() => config(bad), bad).toThrow(ConfigError);
    }
    expect(() =>
      loadConfig({ DATA_DIR: '/tmp', SECRET: 'x'.repeat(32), CLAMAV_URL: '/s', CLAMAV_TIMEOUT_MS: '5' }),
    ).toThrow(ConfigError);
  });
});

describe('memory', () => {
  it('streams 128 MiB with buffer memory far below the file size (each frame waits for the socket)', async () => {
    const address = parseClamdAddress(unix.url);
    const base = process.memoryUsage().arrayBuffers;
    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().arrayBuffers - base);
    }, 5);
    try {
      expect(await scanStream(address, generated(2048), { timeoutMs: 60_000 })).toEqual({ result: 'CLEAN' });
    } finally {
      clearInterval(sampler);
    }
    // Measured ≈ 25–32 MiB (garbage not yet collected); a client without backpressure holds all 128 MiB.
    expect(peak).toBeLessThan(64 * 1024 * 1024);
  }, 60_000);
});
