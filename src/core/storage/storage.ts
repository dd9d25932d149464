// One interface over local disk and S3-compatible object storage (DESIGN §1, §8 "Signed URLs").
import type { Readable } from 'node:stream';

export interface PutOptions {
  contentType: string;
  /** Long-lived public cache (content-addressed images). */
  immutable?: boolean;
}

export interface StoredObject {
  key: string;
  size: number;
}

export interface ObjectInfo {
  size: number;
  contentType: string;
  /** When the object was last written (set by head; the storage sweep re-checks it before deleting). */
  lastModified?: Date;
}

/** One object in a listing. */
export interface ListedObject {
  key: string;
  size: number;
  lastModified: Date;
}

export interface ListOptions {
  /** Only keys under this folder-like prefix (must end with '/'). */
  prefix: string;
  /** Most objects in one page (the S3 maximum is 1000). */
  pageSize: number;
}

export interface ByteRange {
  /** Inclusive start offset. */
  start: number;
  /** Inclusive end offset. */
  end: number;
}

export interface ObjectStream extends ObjectInfo {
  body: Readable;
}

export interface SignedUrlOptions {
  /** Seconds the URL stays valid. */
  expiresIn: number;
  /** Name offered to the browser in Content-Disposition: attachment. */
  downloadName: string;
}

export interface Storage {
  readonly driver: 'local' | 's3';
  /** Streams the body to `key`. Never buffers the whole object in memory. */
  put(key: string, body: Readable | Buffer, options: PutOptions): Promise<StoredObject>;
  /** Streams an object (optionally a byte range); undefined when it does not exist. */
  get(key: string, range?: ByteRange): Promise<ObjectStream | undefined>;
  head(key: string): Promise<ObjectInfo | undefined>;
  /** Removes an object; removing a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** Public URL of an image-like object under CDN_URL. */
  publicUrl(key: string): string;
  /** Expiring download URL: HMAC-signed /cdn/files/… for local storage, presigned GET for S3. */
  signedUrl(key: string, options: SignedUrlOptions): Promise<string>;
  /** Readiness probe. */
  ping(): Promise<void>;
  /** Pages through the objects under a prefix; only one page is held at a time, whatever the bucket's size. */
  list(options: ListOptions): AsyncIterable<ListedObject[]>;
  /**
   * Removes uploads under `prefix` started before `startedBefore` that never finished (S3 multipart uploads, the
   * local driver's temporary files); returns how many. Undefined when the service cannot list them (some
   * S3-compatible servers): there, the bucket lifecycle rule is what removes them.
   */
  abortIncompleteUploads(options: { prefix: string; startedBefore: Date }): Promise<number | undefined>;
}
