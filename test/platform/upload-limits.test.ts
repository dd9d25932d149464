// Over-limit uploads on a real socket: a Content-Length above the cap is refused before its body is read, a
// chunked body is cut at the cap, and either way the 413 (our error shape) closes the connection instead of
// reading the rest of the body.
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createResourceCast, resourceFor } from '../resources/helpers.js';
import type { ResourceCast } from '../resources/helpers.js';
import { createVersion, versionUrl } from '../versions/helpers.js';

const MiB = 1024 * 1024;
let t: TestApp;
let cast: ResourceCast;
let port: number;
let filesPath: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  t = await buildTestApp({ MAX_FILE_MB: '1' });
  cast = await createResourceCast(t.app);
  const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
  const version = await createVersion(t.app, cast.owner, resource.id);
  filesPath = `${versionUrl(resource.id, version.id)}/files`;
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await t.close();
});

const boundary = 'limit-test-boundary';
const partHead =
  `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n` +
  'Content-Type: application/octet-stream\r\n\r\n';

interface Exchange {
  socket: Socket;
  /** Resolves when the server closed the connection, with everything it sent. */
  closed: Promise<string>;
  received(): string;
}

async function open(head: string): Promise<Exchange> {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  socket.setEncoding('latin1');
  socket.on('error', () => {});
  await new Promise((done) => socket.once('connect', done));
  let received = '';
  socket.on('data', (chunk: string) => (received += chunk));
  const closed = new Promise<string>((done) => socket.once('close', () => done(received)));
  socket.write(head);
  return { socket, closed, received: () => received };
}

function requestHead(lengthHeader: string): string {
  return (
    `POST ${filesPath} HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${cast.owner.apiKey}\r\n` +
    `Content-Type: multipart/form-data; boundary=${boundary}\r\n${lengthHeader}\r\n\r\n`
  );
}

function expect413(response: string): void {
  expect(response).toMatch(/^HTTP\/1\.1 413 /);
  expect(response.toLowerCase()).toContain('connection: close');
  const body = JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
  expect(body).toMatchObject({ statusCode: 413, error: 'Payload Too Large', code: 'PAYLOAD_TOO_LARGE' });
}

describe('over-limit uploads', () => {
  it('refuses a 1 GiB Content-Length at once: 413 after 64 KiB sent, and the connection is closed', async () => {
    const exchange = await open(requestHead(`Content-Length: ${1024 * MiB}`));
    exchange.socket.write(partHead + 'x'.repeat(64 * 1024));
    const response = await exchange.closed;
    expect413(response);
    expect(response).toMatch(/larger than 1 MiB/);
  });

  it('cuts a chunked body at the cap: 413, connection closed, far less than the whole body read', async () => {
    const exchange = await open(requestHead('Transfer-Encoding: chunked'));
    const chunk = Buffer.alloc(64 * 1024, 'y');
    const frame = (data: Buffer | string) => {
      const bytes = Buffer.from(data);
      return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);
    };
    exchange.socket.write(frame(partHead));
    // Keep sending (up to 64 MiB) for as long as the server reads; it must stop us long before that.
    let sent = 0;
    let stillOpen = true;
    void exchange.closed.then(() => (stillOpen = false));
    while (stillOpen && exchange.received() === '' && sent < 64 * MiB) {
      if (!exchange.socket.write(frame(chunk))) {
        await Promise.race([new Promise((done) => exchange.socket.once('drain', done)), exchange.closed]);
      }
      sent += chunk.length;
    }
    const response = await exchange.closed;
    expect413(response);
    expect(sent).toBeLessThan(16 * MiB);
  });

  it('keeps ordinary keep-alive connections alive', async () => {
    const exchange = await open('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await new Promise<void>((done) => {
      const check = () => (exchange.received().includes('"ok"') ? done() : setTimeout(check, 10));
      check();
    });
    expect(exchange.received().toLowerCase()).toContain('connection: keep-alive');
    exchange.socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await new Promise<void>((done) => {
      const check = () =>
        exchange.received().split('HTTP/1.1 200').length === 3 ? done() : setTimeout(check, 10);
      check();
    });
    expect(exchange.socket.destroyed).toBe(false);
  });
});
