// Socket timeouts on a real listener: a connection that never sends a request, an idle keep-alive connection,
// headers trickled in and a body trickled in are all closed; the limits come from the environment (tiny here).
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';

let t: TestApp;
let port: number;
const sockets: Socket[] = [];

beforeAll(async () => {
  t = await buildTestApp({
    IDLE_TIMEOUT_MS: '400',
    KEEP_ALIVE_TIMEOUT_MS: '300',
    HEADERS_TIMEOUT_MS: '400',
    REQUEST_TIMEOUT_MS: '800',
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await t.close();
});

/** Opens a connection and reports what it received and how long until the server closed it. */
async function open(): Promise<{ socket: Socket; closed: Promise<{ afterMs: number; received: string }> }> {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  socket.setEncoding('utf8');
  await new Promise((done) => socket.once('connect', done));
  const opened = Date.now();
  let received = '';
  socket.on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => {});
  const closed = new Promise<{ afterMs: number; received: string }>((done) =>
    socket.once('close', () => done({ afterMs: Date.now() - opened, received })),
  );
  return { socket, closed };
}

/** Writes one byte every `everyMs` until the socket closes: a slowloris client. */
function trickle(socket: Socket, text: string, everyMs: number): void {
  let index = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || index >= text.length) return clearInterval(timer);
    socket.write(text[index++]!);
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
}

describe('server timeouts', () => {
  it('closes a connection that never sends a byte (IDLE_TIMEOUT_MS)', async () => {
    const { closed } = await open();
    const { afterMs, received } = await closed;
    expect(afterMs).toBeGreaterThanOrEqual(350);
    expect(afterMs).toBeLessThan(5000);
    expect(received).toBe('');
  });

  it('closes an idle keep-alive connection after its response (KEEP_ALIVE_TIMEOUT_MS)', async () => {
    const { socket, closed } = await open();
    socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const { afterMs, received } = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    expect(afterMs).toBeGreaterThanOrEqual(250);
    expect(afterMs).toBeLessThan(5000);
  });

  it('answers 408 and closes when headers trickle in (HEADERS_TIMEOUT_MS)', async () => {
    const { socket, closed } = await open();
    trickle(
      socket,
      'GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ' + 'a'.repeat(200) + '\r\n\r\n',
      100,
    );
    const { afterMs, received } = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(afterMs).toBeLessThan(5000);
  });

  it('answers 408 and closes when a body trickles in one byte at a time (REQUEST_TIMEOUT_MS)', async () => {
    const { socket, closed } = await open();
    const body = JSON.stringify({ login: 'someone', password: 'x'.repeat(100) });
    socket.write(
      'POST /auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        `Content-Length: ${body.length}\r\n\r\n`,
    );
    trickle(socket, body, 100);
    const { afterMs, received } = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(afterMs).toBeGreaterThanOrEqual(700);
    expect(afterMs).toBeLessThan(5000);
  });

  it('still serves an ordinary request on the same server', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });
});

describe('timeout configuration', () => {
  it('has defaults that suit a balancer in front and a 100 MiB upload on a slow link', () => {
    const config = loadConfig({
      SECRET: 'a-secret-of-at-least-thirty-two-characters!',
      DATA_DIR: '/nonexistent',
    });
    expect(config.timeouts).toEqual({
      keepAliveMs: 72_000,
      headersMs: 30_000,
      requestMs: 600_000,
      idleMs: 120_000,
    });
    expect(config.shutdownTimeoutMs).toBe(25_000);
  });

  it('refuses a headers timeout longer than the request timeout, naming the variable', () => {
    expect(() =>
      loadConfig({
        SECRET: 'a-secret-of-at-least-thirty-two-characters!',
        DATA_DIR: '/nonexistent',
        HEADERS_TIMEOUT_MS: '5000',
        REQUEST_TIMEOUT_MS: '1000',
      }),
    ).toThrow(ConfigError);
  });
});
