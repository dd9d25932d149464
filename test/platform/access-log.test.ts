// Access logs (issue 11): one line per request with client IP, user agent, response bytes and duration. A real
// listener in its own process, since the byte count is what went over the socket (headers and the encoded body).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface AccessLine {
  level: number;
  msg: string;
  reason?: string;
  method: string;
  url: string;
  status: number;
  ms: number;
  bytes: number;
  ip: string;
  ua?: string;
}

let server: ChildProcess;
let port: number;
const lines: AccessLine[] = [];

beforeAll(async () => {
  server = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/log-server.ts'], {
    env: { ...process.env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  port = await new Promise<number>((resolve, reject) => {
    server.once('exit', (code) => reject(new Error(`log server exited with ${code}`)));
    createInterface({ input: server.stdout! }).on('line', (line) => {
      const listening = /^LISTENING (\d+)$/.exec(line);
      if (listening !== null) resolve(Number(listening[1]));
      else if (line.startsWith('{')) lines.push(JSON.parse(line) as AccessLine);
    });
  });
}, 60_000);

afterAll(async () => {
  server.removeAllListeners('exit');
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGTERM');
  await exited;
});

/** Sends raw HTTP/1.1 requests on one connection, one after the other; resolves with every byte received. */
function exchange(requests: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let sent = 0;
    const sendNext = () => socket.write(requests[sent++]!);
    socket.on('connect', sendNext);
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      // The next request goes out once the previous answer is complete (its log line is written).
      if (sent < requests.length && requestsAnswered(Buffer.concat(chunks)) === sent) sendNext();
    });
    socket.on('end', () => resolve(Buffer.concat(chunks)));
    socket.on('error', reject);
  });
}

/** Complete responses in `data`: every answer here has a Content-Length or ends with a last chunk. */
function requestsAnswered(data: Buffer): number {
  let count = 0;
  let rest = data.toString('latin1');
  for (;;) {
    const headerEnd = rest.indexOf('\r\n\r\n');
    if (headerEnd < 0) return count;
    const head = rest.slice(0, headerEnd);
    const length = /\r\ncontent-length: (\d+)/i.exec(head);
    let end: number;
    if (length !== null) end = headerEnd + 4 + Number(length[1]);
    else {
      const last = rest.indexOf('\r\n0\r\n\r\n', headerEnd);
      if (last < 0) return count;
      end = last + 7;
    }
    if (rest.length < end) return count;
    count += 1;
    rest = rest.slice(end);
  }
}

/** The log lines arrive through a pipe from the other process, shortly after the answers. */
async function logLinesWhere(match: (line: AccessLine) => boolean, count: number): Promise<AccessLine[]> {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const found = lines.filter((line) => line.msg === 'request' && match(line));
    if (found.length >= count) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the access log line did not arrive');
}

const logLinesFor = (userAgent: string, count: number) =>
  logLinesWhere((line) => line.ua === userAgent, count);

const request = (path: string, userAgent: string, extra = '', close = false) =>
  `GET ${path} HTTP/1.1\r\nHost: logs.test\r\nUser-Agent: ${userAgent}\r\n${extra}` +
  `${close ? 'Connection: close\r\n' : ''}\r\n`;

describe('access log line', () => {
  it('has method, path, status, duration, client IP, user agent and the bytes sent', async () => {
    const received = await exchange([request('/health?x=1', 'probe/1.0', '', true)]);
    const [line] = await logLinesFor('probe/1.0', 1);
    expect(line).toMatchObject({ method: 'GET', url: '/health', status: 200, ip: '127.0.0.1' });
    expect(line!.ms).toBeGreaterThanOrEqual(0);
    expect(line!.bytes).toBe(received.length);
  });

  it('counts the encoded bytes of a compressed answer, which has no Content-Length', async () => {
    const received = await exchange([
      request('/openapi.json', 'gzip-client/2.0', 'Accept-Encoding: gzip\r\n', true),
    ]);
    expect(received.toString('latin1')).toMatch(/content-encoding: gzip/i);
    const [line] = await logLinesFor('gzip-client/2.0', 1);
    expect(line!.bytes).toBe(received.length);
  });

  it('counts each answer on a kept-alive connection separately', async () => {
    const received = await exchange([
      request('/health', 'keepalive/3.0'),
      request('/openapi.json', 'keepalive/3.0', 'Accept-Encoding: br\r\n'),
      request('/no/such/route', 'keepalive/3.0', '', true),
    ]);
    const logged = await logLinesFor('keepalive/3.0', 3);
    expect(logged.map((line) => line.status)).toEqual([200, 200, 404]);
    expect(logged.every((line) => line.bytes > 0)).toBe(true);
    expect(logged.reduce((sum, line) => sum + line.bytes, 0)).toBe(received.length);
  });

  it('bounds a very long user agent', async () => {
    const long = `long-agent/${'x'.repeat(2000)}`;
    await exchange([request('/health', long, '', true)]);
    const [line] = await logLinesWhere((entry) => entry.ua?.startsWith('long-agent/') === true, 1);
    expect(line!.ua).toBe(long.slice(0, 256));
  });

  it('logs a client that closes the connection mid-body at info level, never as a failed request', async () => {
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      'POST /auth/login HTTP/1.1\r\nHost: logs.test\r\nContent-Type: application/json\r\n' +
        'Content-Length: 1000\r\n\r\n{"login":"half',
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.destroy();
    const deadline = Date.now() + 5000;
    let closed: AccessLine | undefined;
    while (closed === undefined && Date.now() < deadline) {
      closed = lines.find((line) => line.msg.startsWith('client closed the connection'));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(closed).toMatchObject({ level: 30, reason: 'aborted' });
    // Before, the abort (ECONNRESET) was logged at error level as "request failed" and answered as an outage.
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
  });
});
