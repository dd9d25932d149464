// Graceful shutdown of the real process: SIGTERM → /ready 503 at once, in-flight requests finish, idle
// keep-alive connections are closed, exit 0 well before SHUTDOWN_TIMEOUT_MS; a drain that overruns it exits 1.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { get, startServer, stopAll } from '../helpers/server-process.js';

const dirs: string[] = [];
const sockets: Socket[] = [];

function serverEnv(extra: Record<string, string> = {}): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'marketplace-lifecycle-'));
  dirs.push(dir);
  return { DATA_DIR: dir, PORT: '0', SQLITE_SYNCHRONOUS: 'NORMAL', ...extra };
}

afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
  stopAll();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function openSocket(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  socket.setEncoding('utf8');
  await new Promise((done) => socket.once('connect', done));
  return socket;
}

/** Collects what a socket receives, and resolves `closed` when the server ends it. */
function watch(socket: Socket) {
  let received = '';
  socket.on('data', (chunk: string) => (received += chunk));
  const closed = new Promise<void>((done) => socket.once('close', () => done()));
  return { received: () => received, closed };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((done) => setTimeout(done, 10));
}

const body = JSON.stringify({
  username: 'drained',
  email: 'drained@example.com',
  password: 'a long password',
});
const head =
  'POST /auth/register HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
  `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`;

// Each test starts a whole process; on a loaded machine that alone can take tens of seconds.
describe('SIGTERM', { timeout: 120_000 }, () => {
  it('answers /ready 503 while an in-flight request finishes, closes idle keep-alive connections, exits 0', async () => {
    const server = startServer(serverEnv({ SHUTDOWN_TIMEOUT_MS: '60000' }));
    const { port } = await server.listening;

    // A client that keeps its connection alive after one request, and sends nothing more.
    const idle = await openSocket(port);
    const idleWatch = watch(idle);
    idle.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await until(() => idleWatch.received().includes('"status":"ok"'));

    // A request in flight: headers and half of the body sent.
    const slow = await openSocket(port);
    const slowWatch = watch(slow);
    slow.write(head + body.slice(0, 20));
    await new Promise((done) => setTimeout(done, 100));

    const signalled = Date.now();
    server.child.kill('SIGTERM');
    await idleWatch.closed;
    const ready = await get(port, '/ready');
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toEqual({ status: 'shutting_down', checks: {} });

    slow.write(body.slice(20));
    await slowWatch.closed;
    expect(slowWatch.received()).toMatch(/^HTTP\/1\.1 201 /);
    expect(slowWatch.received().toLowerCase()).toContain('connection: close');

    const { code, stdout } = await server.exited;
    expect(code).toBe(0);
    // Far below the 60 s timeout: the drain ends when the request does, not when a timer fires.
    expect(Date.now() - signalled).toBeLessThan(10_000);
    expect(stdout).toContain('shut down cleanly');
  });

  it('exits 0 at once when nothing is in flight, even with an idle keep-alive connection open', async () => {
    const server = startServer(serverEnv({ SHUTDOWN_TIMEOUT_MS: '60000' }));
    const { port } = await server.listening;
    const idle = await openSocket(port);
    const idleWatch = watch(idle);
    idle.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await until(() => idleWatch.received().includes('"status":"ok"'));
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(10_000);
  });

  it('gives up on a request still in flight after SHUTDOWN_TIMEOUT_MS and exits 1, saying so', async () => {
    const server = startServer(serverEnv({ SHUTDOWN_TIMEOUT_MS: '300' }));
    const { port } = await server.listening;
    const stuck = await openSocket(port);
    stuck.write(head + body.slice(0, 5));
    await new Promise((done) => setTimeout(done, 100));
    server.child.kill('SIGTERM');
    const { code, stdout } = await server.exited;
    expect(code).toBe(1);
    expect(stdout).toContain('shutdown timed out');
  });
});
