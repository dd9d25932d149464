// Streams an upload into storage while hashing it (DESIGN §10, spec/extensions.md §2.1: SHA-1, SHA-256 and
// SHA-512, memory flat whatever the size). The kind is detected from the first bytes before the object is
// written, so the object is stored with its real content type and downloads need no second look at the bytes.
import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { finished, Transform } from 'node:stream';
import type { Readable, TransformCallback } from 'node:stream';
import { payloadTooLarge } from '../http/errors.js';
import type { Storage } from '../storage/storage.js';
import { DETECTION_HEAD_BYTES, detectFileType } from './file-kind.js';

export interface StoreStreamOptions {
  /** More bytes than this → 413, and nothing is left in storage. */
  maxBytes: number;
  /** The client's (already safe) file name: with the first bytes it decides the detected kind. */
  fileName?: string;
  /** Stores with this type instead of the detected one. */
  contentType?: string;
}

export interface StoredStream {
  size: number;
  /** Hex digests of the whole content. */
  sha256: string;
  sha1: string;
  sha512: string;
  /** A copy of the first DETECTION_HEAD_BYTES bytes (fewer for a smaller file). */
  head: Buffer;
  /** Detected from `head` and the file name (see detectFileType). */
  fileType: string;
  /** What the object was stored with. */
  contentType: string;
}

const describeLimit = (maxBytes: number): string =>
  maxBytes % (1024 * 1024) === 0 ? `${maxBytes / (1024 * 1024)} MiB` : `${maxBytes} bytes`;

/**
 * Passes bytes through unchanged, hashing and counting them and keeping a copy of the first ones. `head`
 * settles as soon as enough bytes went past (or the input ended), before anyone reads the output, so storage can
 * be told the content type up front; until then the bytes wait in this stream's own bounded buffer.
 */
class HashingStream extends Transform {
  size = 0;
  limitExceeded = false;
  readonly head: Promise<Buffer>;
  private readonly sha256: Hash = createHash('sha256');
  private readonly sha1: Hash = createHash('sha1');
  private readonly sha512: Hash = createHash('sha512');
  private headChunks: Buffer[] = [];
  private headLength = 0;
  private settleHead!: (head: Buffer) => void;
  private failHead!: (error: Error) => void;

  constructor(private readonly maxBytes: number) {
    // The head must fit in the output buffer, or the input would stop before `head` settles and nothing would
    // ever read the output: a deadlock. Set here rather than trusting Node's default.
    super({ readableHighWaterMark: Math.max(64 * 1024, 2 * DETECTION_HEAD_BYTES) });
    this.head = new Promise<Buffer>((resolve, reject) => {
      this.settleHead = resolve;
      this.failHead = reject;
    });
    // Awaited only until storage takes over; a failure after that reaches the caller through storage.put.
    this.head.catch(() => {});
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      this.limitExceeded = true;
      callback(payloadTooLarge(`The file is larger than ${describeLimit(this.maxBytes)}`));
      return;
    }
    this.sha256.update(chunk);
    this.sha1.update(chunk);
    this.sha512.update(chunk);
    if (this.headLength < DETECTION_HEAD_BYTES) {
      // A copy: keeping a slice would pin the whole (possibly large) chunk in memory.
      const piece = Buffer.from(chunk.subarray(0, DETECTION_HEAD_BYTES - this.headLength));
      this.headChunks.push(piece);
      this.headLength += piece.length;
      if (this.headLength >= DETECTION_HEAD_BYTES) this.releaseHead();
    }
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    this.releaseHead();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.failHead(error ?? new Error('The upload stream was closed before its end'));
    callback(error);
  }

  digests(): { sha256: string; sha1: string; sha512: string } {
    return {
      sha256: this.sha256.digest('hex'),
      sha1: this.sha1.digest('hex'),
      sha512: this.sha512.digest('hex'),
    };
  }

  private releaseHead(): void {
    this.settleHead(Buffer.concat(this.headChunks, this.headLength));
    this.headChunks = [];
  }
}

/**
 * Writes `source` to `key` (a fresh key: on failure whatever is at `key` is deleted) and returns its size,
 * hashes, first bytes and detected kind.
 *
 * Over `maxBytes` the stream into storage is destroyed with a 413, the partial object is deleted and the 413 is
 * thrown, whatever error storage reports for the aborted write. A failing source or a failing storage write
 * likewise deletes the partial object and rethrows (the source's own error first).
 *
 * The source is never destroyed here: on failure it is unpiped and left to the caller, who drains or destroys
 * it. That matters for multipart uploads, where destroying the part stream would stall the parser for the rest
 * of the request (readStreamedUpload drains it instead).
 */
export async function storeStream(
  storage: Storage,
  key: string,
  source: Readable,
  options: StoreStreamOptions,
): Promise<StoredStream> {
  const hashing = new HashingStream(options.maxBytes);
  // Failures reach the caller through `head` or storage.put; without a listener, one that happens while no
  // consumer is attached (during detection) would be an uncaught 'error' event.
  hashing.on('error', () => {});
  let sourceError: unknown;
  // `finished` also catches a source that closes without ending, which would otherwise leave storage waiting.
  const stopWatching = finished(source, { writable: false }, (error) => {
    if (error === undefined || error === null) return;
    sourceError = error;
    hashing.destroy(error);
  });
  source.pipe(hashing);
  try {
    const head = await hashing.head;
    const kind = await detectFileType(head, options.fileName ?? '');
    const contentType = options.contentType ?? kind.contentType;
    const stored = await storage.put(key, hashing, { contentType });
    if (stored.size !== hashing.size) {
      throw new Error(`Storage kept ${stored.size} of the ${hashing.size} bytes written to ${key}`);
    }
    return { size: hashing.size, ...hashing.digests(), head, fileType: kind.fileType, contentType };
  } catch (error) {
    source.unpipe(hashing);
    hashing.destroy();
    await storage.delete(key).catch(() => {
      // The original failure is the one worth reporting; a leftover object under an unused fresh key is only
      // wasted space.
    });
    if (hashing.limitExceeded) {
      throw payloadTooLarge(`The file is larger than ${describeLimit(options.maxBytes)}`);
    }
    throw sourceError ?? error;
  } finally {
    stopWatching();
  }
}
