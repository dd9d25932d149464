// detectFileType: magic bytes first, the jar rule, text kinds only for clean UTF-8, and the fallbacks.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZipFile } from 'yazl';
import {
  DETECTION_HEAD_BYTES,
  detectFileType,
  fileExtension,
  looksLikeUtf8Text,
} from '../../../src/core/files/file-kind.js';
import { gifImage, jpegImage, pngImage, webpImage } from '../../fixtures/images.js';

async function zipOf(names: string[]): Promise<Buffer> {
  const zip = new ZipFile();
  for (const name of names) zip.addBuffer(Buffer.from(`content of ${name}`), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A one-file POSIX (ustar) tar, built by hand: a 512-byte header with its checksum, then the padded data. */
function tarOf(name: string, data: Buffer): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, 'ascii');
  header.write('0000644\0', 100, 'ascii');
  header.write('0000000\0', 108, 'ascii');
  header.write('0000000\0', 116, 'ascii');
  header.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124, 'ascii');
  header.write('00000000000\0', 136, 'ascii');
  header.write('        ', 148, 'ascii');
  header.write('0', 156, 'ascii');
  header.write('ustar\x0000', 257, 'ascii');
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  const padded = Buffer.alloc(Math.ceil(data.length / 512) * 512);
  data.copy(padded);
  return Buffer.concat([header, padded, Buffer.alloc(1024)]);
}

const pad = (head: Buffer, size = 200) =>
  Buffer.concat([head, Buffer.alloc(Math.max(0, size - head.length))]);

const SEVEN_Z = pad(Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c, 0x00, 0x04]));
const RAR5 = pad(Buffer.from('Rar!\x1a\x07\x01\x00', 'latin1'));
const MP4 = pad(
  Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom\0\0\x02\0isomiso2', 'latin1')]),
);
const WEBM = Buffer.from('1a45dfa39f4286810142f7810142f2810442f381084282847765626d4287810442858102', 'hex');
const PDF = Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n', 'latin1');

describe('detectFileType by magic bytes', () => {
  const samples: Record<string, Buffer> = {};

  beforeAll(async () => {
    samples['png'] = await pngImage(8, 8);
    samples['jpg'] = await jpegImage(8, 8);
    samples['webp'] = await webpImage(8, 8);
    samples['gif'] = await gifImage(8, 8);
    // Manifest last, as most build tools do not put it first.
    samples['zip'] = await zipOf(['pack.mcmeta', 'assets/a.png']);
    samples['jar'] = await zipOf(['com/example/Mod.class', 'META-INF/MANIFEST.MF']);
    samples['tar'] = tarOf('a.txt', Buffer.from('hello'));
    samples['gz'] = gzipSync(Buffer.from('hello'));
    samples['tgz'] = gzipSync(tarOf('a.txt', Buffer.from('hello')));
  });

  it.each([
    ['png', 'x.png', 'png', 'image/png'],
    ['png', 'renamed.jar', 'png', 'image/png'],
    ['jpg', 'photo.jpeg', 'jpg', 'image/jpeg'],
    ['webp', 'shot', 'webp', 'image/webp'],
    ['gif', 'anim.gif', 'gif', 'image/gif'],
    ['zip', 'pack.zip', 'zip', 'application/zip'],
    ['zip', 'mod.jar', 'jar', 'application/java-archive'],
    ['zip', 'MOD.JAR', 'jar', 'application/java-archive'],
    ['zip', 'download', 'zip', 'application/zip'],
    ['jar', 'mod.jar', 'jar', 'application/java-archive'],
    ['jar', 'mod.zip', 'zip', 'application/zip'],
    ['jar', 'mod', 'jar', 'application/java-archive'],
    ['tar', 'world.tar', 'tar', 'application/x-tar'],
    ['gz', 'log.gz', 'gz', 'application/gzip'],
    ['tgz', 'world.tar.gz', 'gz', 'application/gzip'],
  ])('%s bytes named %s → %s (%s)', async (sample, fileName, fileType, contentType) => {
    expect(await detectFileType(samples[sample]!, fileName)).toEqual({ fileType, contentType });
  });

  it.each([
    ['7z', SEVEN_Z, 'a.7z', '7z', 'application/x-7z-compressed'],
    ['rar', RAR5, 'a.rar', 'rar', 'application/vnd.rar'],
    ['mp4', MP4, 'clip.mp4', 'mp4', 'video/mp4'],
    ['webm', WEBM, 'clip.webm', 'webm', 'video/webm'],
    ['pdf (another kind)', PDF, 'manual', 'pdf', 'application/pdf'],
    [
      'xml without an extension',
      Buffer.from('<?xml version="1.0"?><a/>'),
      'config',
      'xml',
      'application/xml; charset=utf-8',
    ],
  ])('%s', async (_kind, head, fileName, fileType, contentType) => {
    expect(await detectFileType(head, fileName)).toEqual({ fileType, contentType });
  });

  it('reads a jar from only its first bytes', async () => {
    const jar = await zipOf([
      ...Array.from({ length: 200 }, (_, i) => `com/example/C${i}.class`),
      'META-INF/MANIFEST.MF',
    ]);
    expect(jar.length).toBeGreaterThan(DETECTION_HEAD_BYTES);
    expect(await detectFileType(jar.subarray(0, DETECTION_HEAD_BYTES), 'mod.jar')).toEqual({
      fileType: 'jar',
      contentType: 'application/java-archive',
    });
  });
});

describe('detectFileType for text kinds', () => {
  it.each([
    ['notes.txt', 'txt', 'text/plain; charset=utf-8'],
    ['README.md', 'md', 'text/markdown; charset=utf-8'],
    ['data.JSON', 'json', 'application/json; charset=utf-8'],
    ['config.yaml', 'yaml', 'application/yaml; charset=utf-8'],
    ['config.yml', 'yml', 'application/yaml; charset=utf-8'],
    ['Cargo.toml', 'toml', 'application/toml; charset=utf-8'],
    ['layout.xml', 'xml', 'application/xml; charset=utf-8'],
  ])('clean UTF-8 named %s → %s', async (fileName, fileType, contentType) => {
    const head = Buffer.from('name: Überpack ✓\nversion: 1\n');
    expect(await detectFileType(head, fileName)).toEqual({ fileType, contentType });
  });

  it.each([
    ['a NUL byte', Buffer.from('key = "value"\0more')],
    ['invalid UTF-8', Buffer.from([0x6b, 0x65, 0x79, 0xc3, 0x28, 0x0a])],
    ['UTF-16', Buffer.from('key = 1', 'utf16le')],
  ])('a .toml with %s is bin', async (_case, head) => {
    expect(await detectFileType(head, 'config.toml')).toEqual({
      fileType: 'bin',
      contentType: 'application/octet-stream',
    });
  });

  it('accepts a head cut in the middle of a multi-byte character', async () => {
    const text = Buffer.from('é'.repeat(DETECTION_HEAD_BYTES));
    expect(text.length).toBeGreaterThan(DETECTION_HEAD_BYTES);
    const head = text.subarray(0, DETECTION_HEAD_BYTES + 1);
    expect(await detectFileType(head, 'lang.json')).toEqual({
      fileType: 'json',
      contentType: 'application/json; charset=utf-8',
    });
    expect(looksLikeUtf8Text(Buffer.from([0xc3, 0x28]))).toBe(false);
  });

  it('an empty text file is still text', async () => {
    expect(await detectFileType(Buffer.alloc(0), 'empty.txt')).toEqual({
      fileType: 'txt',
      contentType: 'text/plain; charset=utf-8',
    });
  });
});

describe('detectFileType fallbacks', () => {
  // Matches no magic number (careful: a1b2c3d4 would be a pcap capture) and is not UTF-8.
  const noise = Buffer.from('0123456789abcdeffedcba9876543210'.repeat(8), 'hex');

  it.each([
    ['an unknown extension is kept', 'world.mcworld', 'mcworld'],
    ['upper-case extensions are lowered', 'SAVE.DAT', 'dat'],
    ['no extension → bin', 'blob', 'bin'],
    ['a trailing dot → bin', 'blob.', 'bin'],
    ['a dot-file without extension → bin', '.env', 'bin'],
    ['a non-alphanumeric extension → bin', 'a.b c', 'bin'],
    ['a binary kind whose bytes do not match → bin', 'fake.png', 'bin'],
    ['a jar that is not a ZIP → bin', 'fake.jar', 'bin'],
    ['a jpeg that is not one → bin', 'fake.jpeg', 'bin'],
    ['a .txt that is not text → bin', 'fake.txt', 'bin'],
  ])('%s (%s → %s)', async (_case, fileName, fileType) => {
    expect(await detectFileType(noise, fileName)).toEqual({
      fileType,
      contentType: 'application/octet-stream',
    });
  });

  it('never serves an unknown kind with a type a browser would render', async () => {
    const html = Buffer.from('<!doctype html><script>alert(1)</script>');
    expect(await detectFileType(html, 'page.html')).toEqual({
      fileType: 'html',
      contentType: 'application/octet-stream',
    });
  });

  it('extracts extensions', () => {
    expect(fileExtension('archive.tar.gz')).toBe('gz');
    expect(fileExtension('Mod.JAR')).toBe('jar');
    expect(fileExtension('noext')).toBeUndefined();
    expect(fileExtension('.bashrc')).toBeUndefined();
    expect(fileExtension('a.')).toBeUndefined();
  });
});

describe('detectFileType on files made by system tools', () => {
  let directory: string;
  const hasTar = (() => {
    try {
      execFileSync('tar', ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'file-kind-'));
  });
  afterAll(() => rm(directory, { recursive: true, force: true }));

  it.skipIf(!hasTar)('recognises a GNU tar and a gzipped tar', async () => {
    await writeFile(join(directory, 'a.txt'), 'hello');
    execFileSync('tar', ['-cf', join(directory, 'a.tar'), '-C', directory, 'a.txt']);
    execFileSync('tar', ['-czf', join(directory, 'a.tgz'), '-C', directory, 'a.txt']);
    const tar = await readFile(join(directory, 'a.tar'));
    const tgz = await readFile(join(directory, 'a.tgz'));
    expect((await detectFileType(tar.subarray(0, DETECTION_HEAD_BYTES), 'a.tar')).fileType).toBe('tar');
    expect((await detectFileType(tgz.subarray(0, DETECTION_HEAD_BYTES), 'a.tgz')).fileType).toBe('gz');
  });
});
