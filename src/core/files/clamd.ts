// A minimal clamd client (spec/extensions.md §2.4): PING and INSTREAM over TCP or a unix socket.
//
// Why not the `clamscan` package (tried and dropped): its scanStream() forwards every chunk of the source with
// `transform.write()` and `socket.write()` and ignores their return values, so a source faster than clamd (a local
// disk, S3) piles up in the socket's write buffer — the whole file in memory for a large upload. It also logs to
// console, and the early reply clamd sends when its stream limit is reached surfaces only as "Scan aborted".
// Here each frame waits for the socket to drain, so memory stays at one frame plus the socket's buffer whatever
// the file size, and the limit reply is recognised.
//
// Protocol (clamd(8)): `zINSTREAM\0`, then frames `<uint32 big-endian length><bytes>`, then a zero length. The
// reply is `stream: OK`, `stream: <signature> FOUND` or `<message> ERROR`, NUL-terminated. When the stream passes
// clamd's StreamMaxLength, clamd answers `INSTREAM size limit exceeded. ERROR` and closes the connection.
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';

/** Where clamd listens: CLAMAV_URL is `tcp://host:port` or the absolute path of a unix socket. */
export type ClamdAddress = { kind: 'tcp'; host: string; port: number } | { kind: 'unix'; path: string };

export type ScanVerdict =
  | { result: 'CLEAN' }
  | { result: 'INFECTED'; signature: string }
  /** The file is larger than clamd's StreamMaxLength: clamd stopped reading it. */
  | { result: 'TOO_LARGE' };

/**
 * UNREACHABLE: no connection, or it broke before clamd answered; TIMEOUT: clamd went quiet; REFUSED: clamd
 * answered with an error (the message says which).
 */
export class ClamdError extends Error {
  constructor(
    readonly kind: 'UNREACHABLE' | 'TIMEOUT' | 'REFUSED',
    message: string,
  ) {
    super(message);
    this.name = 'ClamdError';
  }
}

export interface ClamdOptions {
  /** Connect and any silence of clamd longer than this (reading a large file is not silence). */
  timeoutMs: number;
}

/** 64 KiB frames: large enough to keep clamd busy, small enough that memory per scan is a few frames. */
const FRAME_BYTES = 64 * 1024;

/** Parses CLAMAV_URL; throws an Error whose message says what is wrong. */
export function parseClamdAddress(raw: string): ClamdAddress {
  if (raw.startsWith('/')) return { kind: 'unix', path: raw };
  if (!raw.startsWith('tcp://')) {
    throw new Error(`must be tcp://host:port or the absolute path of a unix socket, got "${raw}"`);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`must be tcp://host:port, got "${raw}"`);
  }
  const port = Number(url.port);
  if (url.hostname === '' || url.port === '' || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`must name a host and a port (1–65535), e.g. tcp://127.0.0.1:3310, got "${raw}"`);
  }
  if (url.pathname !== '/' && url.pathname !== '') throw new Error(`must not have a path, got "${raw}"`);
  // URL keeps IPv6 literals in brackets; net.connect wants them bare.
  return { kind: 'tcp', host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port };
}

export function describeAddress(address: ClamdAddress): string {
  return address.kind === 'unix' ? address.path : `${address.host}:${address.port}`;
}

/** An open connection and the reply as it arrives; resolves once connected. */
function open(address: ClamdAddress, options: ClamdOptions) {
  const socket =
    address.kind === 'unix'
      ? connect({ path: address.path })
      : connect({ host: address.host, port: address.port });
  const chunks: Buffer[] = [];
  let replyBytes = 0;
  let failure: ClamdError | undefined;
  socket.setTimeout(options.timeoutMs);
  socket.on('data', (chunk: Buffer) => {
    // A reply is one short line; anything longer is not clamd.
    replyBytes += chunk.length;
    if (replyBytes > 4096) {
      failure ??= new ClamdError('REFUSED', 'the peer sent more than a clamd reply');
      socket.destroy();
    } else chunks.push(chunk);
  });
  socket.on('timeout', () => {
    failure ??= new ClamdError('TIMEOUT', `clamd at ${describeAddress(address)} did not answer in time`);
    socket.destroy();
  });
  socket.on('error', (error: NodeJS.ErrnoException) => {
    // A write that fails because clamd already answered and closed (the stream limit) is not a failure: the
    // reply decides. Anything else before a reply is.
    failure ??= new ClamdError(
      'UNREACHABLE',
      `clamd at ${describeAddress(address)}: ${error.code ?? error.message}`,
    );
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const connected = new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    void closed.then(() => reject(failure ?? new ClamdError('UNREACHABLE', 'the connection closed')));
  });
  return {
    socket,
    connected,
    answered: () => replyBytes > 0,
    /** The reply once clamd closed the connection, without its NUL and line end. */
    async reply(): Promise<string> {
      await closed;
      const text = Buffer.concat(chunks)
        .toString('utf8')
        .replace(/[\0\r\n]+$/, '');
      if (text === '' && failure !== undefined) throw failure;
      if (text === '') throw new ClamdError('UNREACHABLE', 'clamd closed the connection without answering');
      return text;
    },
  };
}

/**
 * Writes one frame and waits until the socket took it. False when clamd has answered or closed its side: clamd
 * replies and closes as soon as the stream passes its limit, and writing on would fail (EPIPE) and lose the reply.
 */
async function writeFrame(socket: Socket, parts: Buffer[], answered: () => boolean): Promise<boolean> {
  // Lets a reply that already arrived be read before the next write.
  await new Promise((resolve) => setImmediate(resolve));
  if (answered() || socket.destroyed || socket.writableEnded) return false;
  return new Promise<boolean>((resolve) => {
    const done = () => {
      socket.off('close', done);
      resolve(!socket.destroyed);
    };
    socket.once('close', done);
    parts.forEach((part, index) => socket.write(part, index === parts.length - 1 ? () => done() : undefined));
  });
}

function lengthPrefix(length: number): Buffer {
  const prefix = Buffer.alloc(4);
  prefix.writeUInt32BE(length, 0);
  return prefix;
}

/** Reads `source` in frames of at most FRAME_BYTES. */
async function* frames(source: Readable): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    for (let offset = 0; offset < buffer.length; offset += FRAME_BYTES) {
      yield buffer.subarray(offset, offset + FRAME_BYTES);
    }
  }
}

export function parseScanReply(reply: string): ScanVerdict {
  if (/^stream: OK$/.test(reply)) return { result: 'CLEAN' };
  const found = /^stream: (.+) FOUND$/.exec(reply);
  if (found) return { result: 'INFECTED', signature: found[1]! };
  if (/size limit exceeded/i.test(reply)) return { result: 'TOO_LARGE' };
  throw new ClamdError('REFUSED', `clamd answered "${reply.slice(0, 200)}"`);
}

/**
 * Streams `source` to clamd and returns its verdict. The source is always consumed or destroyed. Throws
 * ClamdError when clamd cannot be reached or does not give a verdict, and the source's own error when it fails.
 */
export async function scanStream(
  address: ClamdAddress,
  source: Readable,
  options: ClamdOptions,
): Promise<ScanVerdict> {
  const connection = open(address, options);
  const { socket } = connection;
  const answered = connection.answered;
  // Frames clamd's socket took before the connection broke, if it did.
  let framesSent = 0;
  try {
    await connection.connected;
    if (await writeFrame(socket, [Buffer.from('zINSTREAM\0')], answered)) {
      for await (const frame of frames(source)) {
        if (!(await writeFrame(socket, [lengthPrefix(frame.length), frame], answered))) break;
        framesSent += 1;
      }
      if (!socket.destroyed && !socket.writableEnded) socket.end(lengthPrefix(0));
    }
    return parseScanReply(await connection.reply());
  } catch (error) {
    socket.destroy();
    // The reply may have come before the source failed or the write broke: it decides.
    const reply = await connection.reply().catch(() => '');
    if (reply !== '') return parseScanReply(reply);
    if (error instanceof ClamdError && error.kind === 'UNREACHABLE' && framesSent > 0) {
      // clamd cut the stream mid-way. It does that only when the stream passes StreamMaxLength, and then its
      // reply can be lost: on TCP a write racing its close gets EPIPE/ECONNRESET and the kernel drops what clamd
      // sent. If clamd is alive, that is the limit; if not, it went away (a restart) and the scan is retried.
      if (
        await ping(address, options).then(
          () => true,
          () => false,
        )
      )
        return { result: 'TOO_LARGE' };
    }
    throw error;
  } finally {
    source.destroy();
  }
}

/** PING → PONG: whether clamd is there and answering. */
export async function ping(address: ClamdAddress, options: ClamdOptions): Promise<void> {
  const connection = open(address, options);
  try {
    await connection.connected;
    connection.socket.end('zPING\0');
    const reply = await connection.reply();
    if (reply !== 'PONG') throw new ClamdError('REFUSED', `clamd answered "${reply.slice(0, 200)}" to PING`);
  } finally {
    connection.socket.destroy();
  }
}
