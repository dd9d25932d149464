// Socket timeouts on a real listener: a connection that never sends a request, an idle keep-alive connection,
// headers trickled in and a body trickled in are all closed; the limits come from the environment (tiny here).
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createResourceCast, resourceFor } from '../resources/helpers.js';
import type { ResourceCast } from '../resources/helpers.js';
import { createVersion, versionUrl } from '../versions/helpers.js';

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
async function open(
  to = port,
): Promise<{ socket: Socket; closed: Promise<{ afterMs: number; received: string }> }> {
  // Timed from before connecting: the server's timers start when it accepts, which is after this and may be well
  // before this process sees 'connect' on a loaded machine (a lower bound measured from 'connect' then fails).
  const opened = Date.now();
  const socket = connect(to, '127.0.0.1');
  sockets.push(socket);
  socket.setEncoding('utf8');
  await new Promise((done) => socket.once('connect', done));
  let received = '';
  socket.on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => {});
  const closed = new Promise<{ afterMs: number; received: string }>((done) =>
    socket.once('close', () => done({ afterMs: Date.now() - opened, received })),
  );
  return { socket, closed };
}

/** Writes `chunk` characters every `everyMs` until the socket closes: one at a time is a slowloris client. */
function trickle(socket: Socket, text: string, everyMs: number, chunk = 1): void {
  let index = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || index >= text.length) return clearInterval(timer);
    socket.write(text.slice(index, (index += chunk)));
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
}

describe('server timeouts', () => {
  it('closes a connection that never sends a byte (IDLE_TIMEOUT_MS)', async () => {
    const { closed } = await open();
    const { afterMs, received } = await closed;
    expect(afterMs).toBeGreaterThanOrEqual(350);
    expect(afterMs).toBeLessThan(5000);
    // Closed silently by the idle timeout, or — when node's periodic headers check runs first on a loaded
    // machine (both limits are 400 ms here, and both count from the connection's start) — with a 408.
    expect(received).toMatch(/^(|HTTP\/1\.1 408 [^]*)$/);
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

/** The status line and the JSON body of a raw HTTP/1.1 response. */
function parseResponse(received: string): { status: string; body: Record<string, unknown> } {
  const status = received.slice(0, received.indexOf('\r\n'));
  return {
    status,
    body: JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>,
  };
}

// Floor 2000 B/s after a 500 ms grace window: a trickled body (10 B/s) is cut at ~0.5 s, one sent at 3000 B/s for
// ~1.5 s (three grace windows) is served. The defaults (1 KiB/s after 10 s) scale the same rule up.
describe('minimum body rate (MIN_BODY_BYTES_PER_SECOND, BODY_RATE_GRACE_MS)', () => {
  let slow: TestApp;
  let slowPort: number;
  let cast: ResourceCast;
  let filesPath: string;
  const boundary = 'rate-test-boundary';
  const partHead =
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.bin"\r\n` +
    'Content-Type: application/octet-stream\r\n\r\n';

  beforeAll(async () => {
    slow = await buildTestApp({ MIN_BODY_BYTES_PER_SECOND: '2000', BODY_RATE_GRACE_MS: '500' });
    cast = await createResourceCast(slow.app);
    const resource = await resourceFor(slow.app, cast, 'USER', 'APPROVED');
    const version = await createVersion(slow.app, cast.owner, resource.id);
    filesPath = `${versionUrl(resource.id, version.id)}/files`;
    await slow.app.listen({ port: 0, host: '127.0.0.1' });
    slowPort = (slow.app.server.address() as { port: number }).port;
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await slow.close();
  });

  const jsonHead = (length: number) =>
    'POST /auth/login HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n' +
    `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
  const multipartHead = (length: number) =>
    `POST ${filesPath} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nx-api-key: ${cast.owner.apiKey}\r\n` +
    `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${length}\r\n\r\n`;
  const multipartBody = (size: number) => partHead + 'x'.repeat(size) + `\r\n--${boundary}--\r\n`;

  function expectCutWith408(received: string, afterMs: number): void {
    const { status, body } = parseResponse(received);
    expect(status).toMatch(/^HTTP\/1\.1 408 /);
    expect(body).toMatchObject({ statusCode: 408, error: 'Request Timeout', code: 'REQUEST_TIMEOUT' });
    expect(afterMs).toBeGreaterThanOrEqual(450);
    expect(afterMs).toBeLessThan(3000);
  }

  it('answers 408 in our error shape and closes when a JSON body trickles in below the floor', async () => {
    const { socket, closed } = await open(slowPort);
    const body = JSON.stringify({ login: 'someone', password: 'x'.repeat(100) });
    socket.write(jsonHead(body.length));
    trickle(socket, body, 100);
    const { afterMs, received } = await closed;
    expectCutWith408(received, afterMs);
  });

  it('answers 408 in our error shape and closes when a multipart upload trickles in below the floor', async () => {
    const { socket, closed } = await open(slowPort);
    const body = multipartBody(1000);
    socket.write(multipartHead(body.length));
    trickle(socket, body, 100);
    const { afterMs, received } = await closed;
    expectCutWith408(received, afterMs);
  });

  it('serves a JSON body sent just above the floor for longer than the grace window', async () => {
    const { socket, closed } = await open(slowPort);
    const body = JSON.stringify({ login: 'someone', password: 'p'.repeat(4400) });
    socket.write(jsonHead(body.length));
    trickle(socket, body, 100, 300);
    const { afterMs, received } = await closed;
    expect(afterMs).toBeGreaterThan(1000);
    // Judged by the route (wrong credentials or an over-long field), not cut by the rate guard.
    expect(parseResponse(received).status).not.toMatch(/ 408 /);
    expect(parseResponse(received).body.statusCode).toBeLessThan(500);
  });

  it('stores a multipart upload sent just above the floor for longer than the grace window', async () => {
    const { socket, closed } = await open(slowPort);
    const body = multipartBody(4400);
    socket.write(multipartHead(body.length));
    trickle(socket, body, 100, 300);
    const { afterMs, received } = await closed;
    expect(afterMs).toBeGreaterThan(1000);
    expect(parseResponse(received).status).toMatch(/^HTTP\/1\.1 201 /);
  });

  it('does not time bodiless requests', async () => {
    const { socket, closed } = await open(slowPort);
    socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    expect((await closed).received).toMatch(/^HTTP\/1\.1 200 /);
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
      minBodyBytesPerSecond: 1024,
      bodyRateGraceMs: 10_000,
    });
    expect(config.shutdownTimeoutMs).toBe(25_000);
  });

  it('accepts MIN_BODY_BYTES_PER_SECOND=0 (no floor) and refuses a non-number, naming the variable', () => {
    const base = { SECRET: 'a-secret-of-at-least-thirty-two-characters!', DATA_DIR: '/nonexistent' };
    expect(loadConfig({ ...base, MIN_BODY_BYTES_PER_SECOND: '0' }).timeouts.minBodyBytesPerSecond).toBe(0);
    expect(() => loadConfig({ ...base, MIN_BODY_BYTES_PER_SECOND: '1k' })).toThrow(
      /MIN_BODY_BYTES_PER_SECOND/,
    );
    expect(() => loadConfig({ ...base, BODY_RATE_GRACE_MS: '0' })).toThrow(/BODY_RATE_GRACE_MS/);
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
