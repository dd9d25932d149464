import { createHash, randomBytes } from 'node:crypto';
import multipart from '@fastify/multipart';
import Fastify from 'fastify';
import type { FastifyError, FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBufferedUpload, readStreamedUpload, safeFileName } from '../../src/core/http/multipart.js';

const APP_FILE_LIMIT = 4_000;
const BUFFERED_LIMIT = 1_000;
const STREAMED_LIMIT = 2_000;
const LARGE_ROUTE_LIMIT = 10_000;

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/** What the streaming test route "stored"; tests check it to see consume ran before a late 413. */
let stored: { fileName: string; size: number }[] = [];

async function buildApp(): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(multipart, {
    limits: { fileSize: APP_FILE_LIMIT, files: 1, fields: 20, fieldSize: 100_000 },
  });
  app.setErrorHandler((e: FastifyError, _r, reply) =>
    reply.status(e.statusCode ?? 500).send({ statusCode: e.statusCode, code: e.code, message: e.message }),
  );

  app.post('/buffered', async (request) => {
    const upload = await readBufferedUpload(request, 'image', BUFFERED_LIMIT);
    return { ...upload, data: undefined, size: upload.data.length, sha256: sha256(upload.data) };
  });
  app.post('/buffered-large', async (request) => {
    const upload = await readBufferedUpload(request, 'image', LARGE_ROUTE_LIMIT);
    return { size: upload.data.length };
  });
  app.post('/streamed', async (request) => {
    return readStreamedUpload(request, 'file', STREAMED_LIMIT, async (stream, info) => {
      const hash = createHash('sha256');
      let size = 0;
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        hash.update(chunk);
        size += chunk.length;
      }
      stored.push({ fileName: info.fileName, size });
      return { size, sha256: hash.digest('hex') };
    });
  });
  app.post('/streamed-failing', async (request) => {
    return readStreamedUpload(request, 'file', STREAMED_LIMIT, async () => {
      throw new Error('storage is down');
    });
  });
  return app;
}

type FormEntry = [name: string, value: string | { data: Uint8Array; fileName: string; type?: string }];

async function post(app: FastifyInstance, url: string, entries: FormEntry[]) {
  const form = new FormData();
  for (const [name, value] of entries) {
    if (typeof value === 'string') form.append(name, value);
    else
      form.append(
        name,
        new Blob([value.data], { type: value.type ?? 'application/octet-stream' }),
        value.fileName,
      );
  }
  const encoded = new Response(form);
  return app.inject({
    method: 'POST',
    url,
    payload: Buffer.from(await encoded.arrayBuffer()),
    headers: { 'content-type': encoded.headers.get('content-type') ?? '' },
  });
}

const file = (size: number, fileName = 'upload.bin', type?: string) => ({
  data: randomBytes(size),
  fileName,
  type,
});

let app: FastifyInstance;
beforeAll(async () => {
  app = await buildApp();
});
afterAll(async () => {
  await app.close();
});

describe('readBufferedUpload', () => {
  it('returns the file and the text fields sent before and after it', async () => {
    const upload = file(800, 'avatar.png', 'image/png');
    const res = await post(app, '/buffered', [
      ['title', 'Hello'],
      ['image', upload],
      ['caption', 'wörld ✓'],
    ]);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      fieldName: 'image',
      fileName: 'avatar.png',
      mimeType: 'image/png',
      fields: { title: 'Hello', caption: 'wörld ✓' },
      size: 800,
      sha256: sha256(upload.data),
    });
  });

  it('accepts a file of exactly the limit', async () => {
    const res = await post(app, '/buffered', [['image', file(BUFFERED_LIMIT)]]);
    expect(res.statusCode).toBe(200);
    expect(res.json().size).toBe(BUFFERED_LIMIT);
  });

  it('answers 413 beyond the route limit', async () => {
    const res = await post(app, '/buffered', [['image', file(BUFFERED_LIMIT + 1)]]);
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it("applies the route's own limit even above the app-wide fileSize", async () => {
    const res = await post(app, '/buffered-large', [['image', file(APP_FILE_LIMIT * 2)]]);
    expect(res.statusCode).toBe(200);
    expect(res.json().size).toBe(APP_FILE_LIMIT * 2);
  });

  it('answers 400 when the file is missing', async () => {
    const res = await post(app, '/buffered', [['title', 'no file here']]);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'INVALID_REQUEST', message: 'image file is required' });
  });

  it('treats an empty file part (a blank file input) as missing', async () => {
    const res = await post(app, '/buffered', [['image', file(0, '')]]);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('image file is required');
  });

  it('answers 400 for a file under another field name', async () => {
    const res = await post(app, '/buffered', [['picture', file(10)]]);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(res.json().message).toContain('picture');
  });

  it('answers 400 for a second file', async () => {
    const res = await post(app, '/buffered', [
      ['image', file(10)],
      ['image', file(10)],
    ]);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(res.json().message).toContain('Only one file');
  });

  it('answers 413 beyond the fields limit', async () => {
    const fields = Array.from({ length: 21 }, (_, i): FormEntry => [`f${i}`, 'v']);
    const res = await post(app, '/buffered', [...fields, ['image', file(10)]]);
    expect(res.statusCode).toBe(413);
  });

  it('answers 400 for a repeated text field', async () => {
    const res = await post(app, '/buffered', [
      ['title', 'a'],
      ['title', 'b'],
      ['image', file(10)],
    ]);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('title');
  });

  it('answers 413 for a text field over the fieldSize limit instead of truncating it', async () => {
    const res = await post(app, '/buffered', [
      ['title', 'x'.repeat(100_001)],
      ['image', file(10)],
    ]);
    expect(res.statusCode).toBe(413);
  });

  it('sanitises the client file name', async () => {
    const res = await post(app, '/buffered', [['image', file(10, '..\\..\\my   holiday\tphoto.png')]]);
    expect(res.json().fileName).toBe('my holiday photo.png');
  });

  it('keeps the client encoding of quotes in file names rather than guessing at it', async () => {
    // FormData (like browsers) sends `"` as %22 in the filename parameter, and busboy does not decode it.
    const res = await post(app, '/buffered', [['image', file(10, 'say "hi".png')]]);
    expect(res.json().fileName).toBe('say %22hi%22.png');
  });

  it('answers 400 for a request that is not multipart', async () => {
    const res = await app.inject({ method: 'POST', url: '/buffered', payload: { image: 'data:...' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'INVALID_REQUEST', message: 'Expected multipart/form-data' });
  });

  it('answers 400 for a malformed multipart body', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/buffered',
      payload: '--xyz\r\nContent-Disposition: form-data; name="image"; filename="a"\r\n\r\nabc',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
    });
    expect(res.statusCode).toBe(400);
  });

  it('answers 400 for multipart without a boundary', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/buffered',
      payload: 'whatever',
      headers: { 'content-type': 'multipart/form-data' },
    });
    expect(res.statusCode).toBe(400);
  });
});

describe('readStreamedUpload', () => {
  beforeAll(() => {
    stored = [];
  });

  it('streams the file to the consumer and returns its result with the fields around it', async () => {
    const upload = file(STREAMED_LIMIT, 'mod-1.0.jar', 'application/java-archive');
    const res = await post(app, '/streamed', [
      ['version', '1.0.0'],
      ['file', upload],
      ['changelog', 'First release'],
    ]);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      result: { size: STREAMED_LIMIT, sha256: sha256(upload.data) },
      fileName: 'mod-1.0.jar',
      mimeType: 'application/java-archive',
      fields: { version: '1.0.0', changelog: 'First release' },
    });
  });

  it('answers 413 after the consumer returned, so the caller can clean up', async () => {
    stored = [];
    const res = await post(app, '/streamed', [['file', file(STREAMED_LIMIT + 500, 'big.zip')]]);
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    // The consumer saw a stream cut at the limit and finished normally.
    expect(stored).toEqual([{ fileName: 'big.zip', size: STREAMED_LIMIT }]);
  });

  it('answers 400 for a second file after the first was consumed', async () => {
    stored = [];
    const res = await post(app, '/streamed', [
      ['file', file(10, 'one.zip')],
      ['file', file(10, 'two.zip')],
    ]);
    expect(res.statusCode).toBe(400);
    expect(stored.map((s) => s.fileName)).toEqual(['one.zip']);
  });

  it('answers 400 when the file is missing, without calling the consumer', async () => {
    stored = [];
    const res = await post(app, '/streamed', [['version', '1.0.0']]);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'INVALID_REQUEST', message: 'file file is required' });
    expect(stored).toEqual([]);
  });

  it('answers 400 for a file under another field name, without calling the consumer', async () => {
    stored = [];
    const res = await post(app, '/streamed', [['upload', file(10)]]);
    expect(res.statusCode).toBe(400);
    expect(stored).toEqual([]);
  });

  it('answers 400 for a request that is not multipart', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/streamed',
      payload: 'plain',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Expected multipart/form-data');
  });

  it('lets a consumer failure keep its own status instead of blaming the client', async () => {
    const res = await post(app, '/streamed-failing', [['file', file(100)]]);
    expect(res.statusCode).toBe(500);
    expect(res.json().message).toBe('storage is down');
  });
});

describe('safeFileName', () => {
  it.each([
    ['../../etc/passwd', 'passwd'],
    ['C:\\x\\a.jar', 'a.jar'],
    ['dir/sub\\mixed/name.zip', 'name.zip'],
    ['a\u0000b\u0007c\u001bd.png', 'a b c d.png'],
    ['line\r\nbreak.txt', 'line break.txt'],
    ['"quoted" \'name\'.png', 'quoted name .png'],
    ['  lots \t of   space  .png', 'lots of space .png'],
    ['evil\u202egpj.exe', 'evilgpj.exe'],
    ['..', 'file'],
    ['.hidden', 'hidden'],
    ['', 'file'],
    ['   ', 'file'],
    ['/', 'file'],
    ['dir/', 'file'],
    ['plain.png', 'plain.png'],
    ['Ünïcödé 名前.webp', 'Ünïcödé 名前.webp'],
  ])('%j -> %j', (input, expected) => {
    expect(safeFileName(input)).toBe(expected);
  });

  it('keeps at most 255 UTF-8 bytes and the extension', () => {
    const name = safeFileName(`${'a'.repeat(400)}.tar.gz`);
    expect(Buffer.byteLength(name)).toBe(255);
    expect(name.endsWith('aaa.gz')).toBe(true);
  });

  it('does not split multi-byte characters when shortening', () => {
    const name = safeFileName(`${'名'.repeat(200)}.png`);
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
    expect(name).toMatch(/^名+\.png$/);
    expect(name.includes('\ufffd')).toBe(false);
  });

  it('shortens a name whose only "extension" is too long to be one', () => {
    const name = safeFileName(`x.${'b'.repeat(400)}`);
    expect(Buffer.byteLength(name)).toBe(255);
    expect(name.startsWith('x.bbb')).toBe(true);
  });
});
