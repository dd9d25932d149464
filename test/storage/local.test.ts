import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { assertValidKey, isValidKey } from '../../src/core/storage/keys.js';
import { createLocalStorage } from '../../src/core/storage/local.js';
import { verifySignature } from '../../src/core/storage/signed-urls.js';
import type { Storage } from '../../src/core/storage/storage.js';
import { storageContract } from './contract.js';

const secret = 'local-test-secret-0123456789-abcdefghij';
const cdnUrl = 'http://api.test/cdn';

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

describe('storage keys', () => {
  it('accepts relative POSIX paths of safe segments', () => {
    for (const key of [
      'a',
      'images/u/1/abc.webp',
      'files/0193-x/f_1.zip',
      'defaults/avatar-v1.png',
      '.hidden/a',
    ]) {
      expect(isValidKey(key)).toBe(true);
    }
  });

  it('rejects traversal, absolute paths, empty segments, backslashes and odd characters', () => {
    for (const key of [
      '../x',
      '/abs',
      'a//b',
      'a/./b',
      'a/..',
      '.',
      '',
      'a/',
      'a\\b',
      'a b',
      'a%2Fb',
      'é',
      'a?b',
    ]) {
      expect(isValidKey(key)).toBe(false);
      expect(() => assertValidKey(key)).toThrow(Error);
    }
  });
});

describe('local storage', () => {
  let rootDir: string;
  let storage: Storage;
  const clock = new ManualClock('2026-01-15T12:00:00.000Z');

  beforeAll(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'storage-local-'));
    storage = createLocalStorage({ rootDir, cdnUrl, secret, clock });
  });

  afterAll(async () => {
    await rm(rootDir, { recursive: true, force: true });
  });

  storageContract(() => storage, { cdnUrl });

  it('is the local driver', () => {
    expect(storage.driver).toBe('local');
  });

  it('keeps objects inside the root and leaves no temp files behind', async () => {
    await storage.put('images/x/y.png', Buffer.from('png'), { contentType: 'image/png' });
    const files = await listFiles(rootDir);
    expect(files.every((file) => file.startsWith(rootDir))).toBe(true);
    expect(files.some((file) => file.endsWith('.tmp'))).toBe(false);
    expect(files).toContain(join(rootDir, 'objects', 'images', 'x', 'y.png'));
  });

  it('treats a directory or a path through a file as missing', async () => {
    await storage.put('images/dir/file.png', Buffer.from('png'), { contentType: 'image/png' });
    expect(await storage.get('images/dir')).toBeUndefined();
    expect(await storage.head('images/dir')).toBeUndefined();
    expect(await storage.get('images/dir/file.png/child')).toBeUndefined();
    await expect(storage.delete('images/dir/file.png/child')).resolves.toBeUndefined();
  });

  it('signs /cdn/files/… URLs that expire expiresIn seconds from the clock', async () => {
    const url = new URL(
      await storage.signedUrl('files/v1/f1', { expiresIn: 3600, downloadName: 'Cool Map.zip' }),
    );
    expect(`${url.origin}${url.pathname}`).toBe(`${cdnUrl}/files/v1/f1`);
    const expires = url.searchParams.get('expires') ?? '';
    expect(Number(expires)).toBe(Math.floor(clock.now().getTime() / 1000) + 3600);
    expect(url.searchParams.get('name')).toBe('Cool Map.zip');
    const query = { expires, name: 'Cool Map.zip', signature: url.searchParams.get('signature') ?? '' };
    expect(verifySignature({ key: 'files/v1/f1', ...query, secret, now: clock.now() })).toBe(true);
  });

  it('pings by checking the root is writable, creating it if needed', async () => {
    const fresh = createLocalStorage({ rootDir: join(rootDir, 'not-yet', 'there'), cdnUrl, secret });
    await expect(fresh.ping()).resolves.toBeUndefined();
  });
});
