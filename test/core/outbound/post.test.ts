import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { OutboundError, outboundPost, type OutboundPostOptions } from '../../../src/core/outbound/post.js';
import type { Lookup } from '../../../src/core/outbound/target.js';
import { type Receiver, startReceiver, unusedPort } from './receiver.js';

const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const started = await startReceiver(...args);
  receivers.push(started);
  return started;
}

const local = (extra: Partial<OutboundPostOptions> = {}): OutboundPostOptions => ({
  body: '{"type":"webhook.ping"}',
  headers: { 'content-type': 'application/json' },
  timeoutMs: 5_000,
  allowPrivate: true,
  ...extra,
});

/** A resolver answering each call with the next address of the list (the last one repeats). */
function answersInTurn(...addresses: string[]): Lookup & { asked: string[] } {
  const asked: string[] = [];
  const lookup = async (hostname: string) => {
    const address = addresses[Math.min(asked.length, addresses.length - 1)]!;
    asked.push(hostname);
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };
  return Object.assign(lookup, { asked });
}

async function failure(promise: Promise<unknown>): Promise<OutboundError> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(OutboundError);
  return outcome.error as OutboundError;
}

/** Writes until the client goes away (or 64 MB), honouring back-pressure; resolves with the bytes written. */
async function streamUntilClosed(response: ServerResponse): Promise<{ written: number; finished: boolean }> {
  const chunk = Buffer.alloc(16 * 1024, 'x');
  let written = 0;
  response.writeHead(200, { 'content-type': 'text/plain' });
  while (written < 64 * 1024 * 1024 && !response.destroyed) {
    written += chunk.length;
    if (!response.write(chunk)) await drainedOrClosed(response);
  }
  const finished = !response.destroyed;
  response.end();
  return { written, finished };
}

function drainedOrClosed(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}

describe('outboundPost against a real receiver', () => {
  it('posts the body with content-length and returns the status, body and duration', async () => {
    const target = await receiver((_request, response) => response.writeHead(201).end('accepted'));
    const result = await outboundPost(`http://127.0.0.1:${target.port}/hooks?x=1`, local());

    expect(result).toEqual({ status: 201, body: 'accepted', durationMs: expect.any(Number) });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(target.requests).toEqual([
      expect.objectContaining({ method: 'POST', url: '/hooks?x=1', body: '{"type":"webhook.ping"}' }),
    ]);
    const headers = target.requests[0]!.headers;
    expect(headers['content-length']).toBe('23');
    expect(headers['content-type']).toBe('application/json');
    expect(headers['transfer-encoding']).toBeUndefined();
    expect(headers['connection']).toBe('close');
  });

  it('sends its own content-length for a Buffer body, whatever the caller put in the headers', async () => {
    const target = await receiver((_request, response) => response.end());
    const body = Buffer.from('héllo');
    await outboundPost(
      `http://127.0.0.1:${target.port}/`,
      local({ body, headers: { 'Content-Length': '999' } }),
    );
    expect(target.requests[0]).toMatchObject({ body: 'héllo', headers: { 'content-length': '6' } });
  });

  it('returns non-2xx statuses as they are', async () => {
    const target = await receiver((_request, response) =>
      response.writeHead(503).end('down for maintenance'),
    );
    expect(await outboundPost(`http://127.0.0.1:${target.port}/`, local())).toMatchObject({
      status: 503,
      body: 'down for maintenance',
    });
  });

  it('keeps only the first 1024 bytes of a 1 MB body', async () => {
    const megabyte = Buffer.alloc(1024 * 1024, 'a');
    megabyte.write('first-bytes', 0);
    const target = await receiver((_request, response) => response.writeHead(200).end(megabyte));

    const result = await outboundPost(`http://127.0.0.1:${target.port}/`, local());
    expect(Buffer.byteLength(result.body)).toBe(1024);
    expect(result.body).toBe(megabyte.subarray(0, 1024).toString('utf8'));
    await target.allClosed();
  });

  it('closes the connection once maxResponseBytes have arrived instead of reading on', async () => {
    let served: Promise<{ written: number; finished: boolean }> | undefined;
    const target = await receiver((_request, response) => {
      served = streamUntilClosed(response);
    });

    const started = performance.now();
    const result = await outboundPost(`http://127.0.0.1:${target.port}/`, local({ maxResponseBytes: 100 }));
    expect(result.body).toBe('x'.repeat(100));
    expect(performance.now() - started).toBeLessThan(2_000);

    // The receiver was cut off by the closed socket long before its 64 MB were out.
    const { written, finished } = await served!;
    expect(finished).toBe(false);
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it('does not follow a redirect: the 3xx is the result and its Location is never contacted', async () => {
    const elsewhere = await receiver((_request, response) => response.end('should not be reached'));
    const target = await receiver((_request, response) =>
      response.writeHead(302, { location: `http://127.0.0.1:${elsewhere.port}/stolen` }).end('moved'),
    );

    const result = await outboundPost(`http://127.0.0.1:${target.port}/`, local());
    expect(result).toEqual({ status: 302, body: 'moved', durationMs: expect.any(Number) });
    expect(elsewhere.connections).toBe(0);
    expect(target.requests).toHaveLength(1);
  });

  it('gives up with TIMEOUT at the deadline when the receiver never answers, and closes the socket', async () => {
    const target = await receiver(() => {
      /* never answers */
    });
    const started = performance.now();
    const error = await failure(outboundPost(`http://127.0.0.1:${target.port}/`, local({ timeoutMs: 300 })));
    const elapsed = performance.now() - started;

    expect(error.code).toBe('TIMEOUT');
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(1_500);
    expect(error.durationMs).toBeGreaterThanOrEqual(290);
    expect(target.requests).toHaveLength(1);
    await target.allClosed();
  });

  it('counts the time to the whole response: a body that stalls after the headers is a TIMEOUT', async () => {
    const target = await receiver((_request, response) => {
      response.writeHead(200);
      response.write('partial');
    });
    const error = await failure(outboundPost(`http://127.0.0.1:${target.port}/`, local({ timeoutMs: 300 })));
    expect(error.code).toBe('TIMEOUT');
  });

  it('includes DNS in the deadline', async () => {
    const neverAnswers: Lookup = () => new Promise(() => {});
    const started = performance.now();
    const error = await failure(
      outboundPost('http://slow-dns.test/', local({ timeoutMs: 200, lookup: neverAnswers })),
    );
    expect(error.code).toBe('TIMEOUT');
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it('reports a refused connection as CONNECTION', async () => {
    const port = await unusedPort();
    const error = await failure(outboundPost(`http://127.0.0.1:${port}/`, local()));
    expect(error).toMatchObject({ code: 'CONNECTION', message: 'The connection was refused' });
  });

  it('reports a name that does not resolve as DNS', async () => {
    const lookup: Lookup = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    const error = await failure(outboundPost('https://nowhere.test/', local({ lookup })));
    expect(error.code).toBe('DNS');
  });

  it('reports a response that is not HTTP as PROTOCOL', async () => {
    const garbage = createServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n'));
    garbage.listen(0, '127.0.0.1');
    await once(garbage, 'listening');
    try {
      const { port } = garbage.address() as AddressInfo;
      const error = await failure(outboundPost(`http://127.0.0.1:${port}/`, local()));
      expect(error.code).toBe('PROTOCOL');
    } finally {
      garbage.close();
    }
  });
});

describe('outboundPost over TLS', () => {
  it('sends SNI for the host name, verifies the certificate and reports a failure as TLS', async () => {
    const serverNames: string[] = [];
    const target = await receiver((_request, response) => response.end('ok'), {
      tls: true,
      onServerName: (name) => serverNames.push(name),
    });
    const lookup = answersInTurn('127.0.0.1');

    const error = await failure(outboundPost(`https://receiver.test:${target.port}/`, local({ lookup })));
    expect(error.code).toBe('TLS');
    expect(error.message).toContain('SELF_SIGNED');
    expect(serverNames).toEqual(['receiver.test']);
    expect(target.requests).toHaveLength(0);
  });

  it('reports a plain-HTTP peer behind an https URL as TLS', async () => {
    const target = await receiver((_request, response) => response.end('ok'));
    const error = await failure(outboundPost(`https://127.0.0.1:${target.port}/`, local()));
    expect(error.code).toBe('TLS');
  });
});

describe('outboundPost refuses what the address policy refuses', () => {
  it('refuses a private target before connecting when private targets are not allowed', async () => {
    const target = await receiver((_request, response) => response.end('ok'));
    const error = await failure(
      outboundPost(`https://127.0.0.1:${target.port}/`, local({ allowPrivate: false })),
    );
    expect(error).toMatchObject({
      code: 'TARGET_REFUSED',
      message: 'The target URL resolves to a loopback address',
    });
    expect(target.connections).toBe(0);
  });

  it('refuses plain http when private targets are not allowed', async () => {
    const lookup = answersInTurn('93.184.215.14');
    const error = await failure(
      outboundPost('http://hooks.example.com/', local({ allowPrivate: false, lookup })),
    );
    expect(error.code).toBe('TARGET_REFUSED');
    expect(lookup.asked).toEqual([]);
  });
});

describe('outboundPost and DNS rebinding', () => {
  it('connects to exactly the address the lookup answered, with Host naming the URL host', async () => {
    const target = await receiver((_request, response) => response.end('ok'));
    const lookup = answersInTurn('127.0.0.1');

    const result = await outboundPost(`http://receiver.test:${target.port}/in`, local({ lookup }));
    expect(result.status).toBe(200);
    expect(target.requests[0]!.headers['host']).toBe(`receiver.test:${target.port}`);
    expect(lookup.asked).toEqual(['receiver.test']);
  });

  it('does not resolve again at connect time: a second answer pointing elsewhere is never used', async () => {
    // Two receivers on the same port of two loopback addresses; the lookup answers the first, then the second.
    const checked = await receiver((_request, response) => response.end('checked'));
    const rebound = await receiver((_request, response) => response.end('rebound'), {
      host: '127.0.0.2',
      port: checked.port,
    });
    const lookup = answersInTurn('127.0.0.1', '127.0.0.2');

    const result = await outboundPost(`http://rebind.test:${checked.port}/`, local({ lookup }));
    expect(result.body).toBe('checked');
    expect(lookup.asked).toHaveLength(1);
    expect(rebound.connections).toBe(0);
  });

  it('a public first answer and a loopback second answer never reach loopback', async () => {
    const target = await receiver((_request, response) => response.end('reached loopback'));
    const lookup = answersInTurn('2606:4700:4700::1111', '127.0.0.1');
    const url = `https://rebind.test:${target.port}/`;
    const guarded = local({ allowPrivate: false, timeoutMs: 300, lookup });

    // First post: the public answer is checked and connected to (it fails here: nothing listens on that port
    // or there is no route), never the loopback receiver.
    const first = await failure(outboundPost(url, guarded));
    expect(['TIMEOUT', 'CONNECTION']).toContain(first.code);
    expect(lookup.asked).toHaveLength(1);

    // Second post: the name now resolves to loopback, which is refused before any connection.
    const second = await failure(outboundPost(url, guarded));
    expect(second.code).toBe('TARGET_REFUSED');
    expect(lookup.asked).toHaveLength(2);
    expect(target.connections).toBe(0);
  });

  it('refuses when any of several answers is refused, and never connects', async () => {
    const target = await receiver((_request, response) => response.end('ok'));
    const lookup: Lookup = async () => [
      { address: '2606:4700:4700::1111', family: 6 },
      { address: '127.0.0.1', family: 4 },
    ];
    const error = await failure(
      outboundPost(`https://mixed.test:${target.port}/`, local({ allowPrivate: false, lookup })),
    );
    expect(error.code).toBe('TARGET_REFUSED');
    expect(target.connections).toBe(0);
  });
});
