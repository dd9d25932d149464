// S3-compatible driver (AWS, MinIO, R2, …). Uploads stream through lib-storage, so a large file is
// sent as a multipart upload holding at most partSize × queueSize bytes in memory.
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { S3ClientConfig } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { pipeline, Readable, Transform } from 'node:stream';
import { assertValidKey, isPrivateKey, PRIVATE_PREFIX } from './keys.js';
import { attachmentDisposition } from './signed-urls.js';
import type {
  ByteRange,
  ListedObject,
  ObjectInfo,
  ObjectStream,
  PutOptions,
  Storage,
  StoredObject,
} from './storage.js';

export interface S3StorageOptions {
  /** Custom endpoint for S3-compatible services; undefined → AWS. */
  endpoint?: string | undefined;
  region: string;
  bucket: string;
  /** Both undefined → the SDK's default credential chain (env, profile, instance role…). */
  accessKeyId?: string | undefined;
  secretAccessKey?: string | undefined;
  forcePathStyle: boolean;
  /** Base URL of the CDN in front of the bucket, for publicUrl(). */
  cdnUrl: string;
}

const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 2;
const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';
const FALLBACK_CONTENT_TYPE = 'application/octet-stream';

function isNotFound(error: unknown): boolean {
  if (error instanceof S3ServiceException) {
    return error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata.httpStatusCode === 404;
  }
  return false;
}

/**
 * Some S3-compatible servers (s3rver among them) do not support every call, e.g. ListMultipartUploads: they answer
 * it with S3's error code for an unsupported call (HTTP 501), or with 405.
 */
function isUnsupportedByServer(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    (error.name === 'NotImplemented' ||
      error.$metadata.httpStatusCode === 501 ||
      error.$metadata.httpStatusCode === 405)
  );
}

function isInvalidRange(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    (error.name === 'InvalidRange' || error.$metadata.httpStatusCode === 416)
  );
}

interface ServedRange {
  start: number;
  size: number;
}

/** Where the returned body starts and how big the whole object is, from `Content-Range: bytes a-b/size`. */
function servedRange(contentRange: string | undefined, contentLength: number | undefined): ServedRange {
  const match = /^bytes (\d+)-\d+\/(\d+)$/.exec(contentRange ?? '');
  if (match?.[1] !== undefined && match[2] !== undefined)
    return { start: Number(match[1]), size: Number(match[2]) };
  // No Content-Range: the server ignored Range (HTTP allows that) and sent the whole object.
  return { start: 0, size: contentLength ?? 0 };
}

/**
 * Drops `skip` bytes, passes `length` bytes and discards the rest. Used when a server answers a Range
 * request with more than was asked (ignored Range, or s3rver's bytes=0-0), so callers always get exactly
 * the bytes they announced in Content-Length.
 */
function sliceBody(body: Readable, skip: number, length: number): Readable {
  let toSkip = skip;
  let remaining = length;
  const slicer = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      let piece = chunk;
      if (toSkip > 0) {
        const dropped = Math.min(toSkip, piece.length);
        piece = piece.subarray(dropped);
        toSkip -= dropped;
      }
      if (piece.length > remaining) piece = piece.subarray(0, remaining);
      remaining -= piece.length;
      callback(null, piece.length > 0 ? piece : undefined);
    },
  });
  pipeline(body, slicer, () => {});
  return slicer;
}

export function createS3Storage(options: S3StorageOptions): Storage {
  const { bucket } = options;
  const baseUrl = options.cdnUrl.replace(/\/+$/, '');
  const config: S3ClientConfig = {
    region: options.region,
    forcePathStyle: options.forcePathStyle,
  };
  if (options.endpoint !== undefined) {
    config.endpoint = options.endpoint;
    // Many S3-compatible servers reject or mis-store the flexible checksums (aws-chunked trailers)
    // the SDK sends by default; only send them where an operation requires one.
    config.requestChecksumCalculation = 'WHEN_REQUIRED';
    config.responseChecksumValidation = 'WHEN_REQUIRED';
  }
  if (options.accessKeyId !== undefined && options.secretAccessKey !== undefined) {
    config.credentials = { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey };
  }
  const client = new S3Client(config);

  return {
    driver: 's3',

    async put(key: string, body: Readable | Buffer, putOptions: PutOptions): Promise<StoredObject> {
      assertValidKey(key);
      let size = 0;
      let source: Buffer | Transform;
      if (Buffer.isBuffer(body)) {
        size = body.length;
        source = body;
      } else {
        // Count bytes as they pass instead of trusting a length header: the caller's stream is the truth.
        // A transform rather than a 'data' listener, which would switch the stream to flowing mode and
        // could drop chunks before the uploader starts reading.
        const counter = new Transform({
          transform(chunk: Buffer, _encoding, callback) {
            size += chunk.length;
            callback(null, chunk);
          },
        });
        // pipeline (not pipe) so an error in the caller's stream fails the upload instead of hanging it.
        pipeline(body, counter, () => {});
        source = counter;
      }
      const upload = new Upload({
        client,
        partSize: PART_SIZE,
        queueSize: QUEUE_SIZE,
        params: {
          Bucket: bucket,
          Key: key,
          Body: source,
          ContentType: putOptions.contentType,
          ...(putOptions.immutable ? { CacheControl: IMMUTABLE_CACHE } : {}),
        },
      });
      try {
        await upload.done();
      } catch (error) {
        if (!Buffer.isBuffer(source)) source.destroy();
        throw error;
      }
      return { key, size };
    },

    async get(key: string, range?: ByteRange): Promise<ObjectStream | undefined> {
      assertValidKey(key);
      if (
        range !== undefined &&
        !(Number.isSafeInteger(range.start) && range.start >= 0 && range.start <= range.end)
      ) {
        throw new RangeError(`Range ${range.start}-${range.end} is not satisfiable`);
      }
      try {
        const response = await client.send(
          new GetObjectCommand({
            Bucket: bucket,
            Key: key,
            ...(range === undefined ? {} : { Range: `bytes=${range.start}-${range.end}` }),
          }),
        );
        const body = response.Body;
        if (!(body instanceof Readable)) throw new Error('S3 GetObject returned a non-stream body');
        const contentType = response.ContentType ?? FALLBACK_CONTENT_TYPE;
        if (range === undefined) return { body, size: response.ContentLength ?? 0, contentType };
        const served = servedRange(response.ContentRange, response.ContentLength);
        const end = Math.min(range.end, served.size - 1);
        const servedLength = response.ContentLength ?? 0;
        if (served.start === range.start && servedLength === end - range.start + 1) {
          return { body, size: served.size, contentType };
        }
        const servedEnd = served.start + servedLength - 1;
        if (served.start > range.start || servedEnd < end || range.start > end) {
          body.destroy();
          throw new RangeError(
            `Range ${range.start}-${range.end} is not satisfiable for ${served.size} bytes`,
          );
        }
        return {
          body: sliceBody(body, range.start - served.start, end - range.start + 1),
          size: served.size,
          contentType,
        };
      } catch (error) {
        if (isNotFound(error)) return undefined;
        if (!isInvalidRange(error)) throw error;
        throw new RangeError(`Range ${range?.start}-${range?.end} is not satisfiable`);
      }
    },

    async head(key: string): Promise<ObjectInfo | undefined> {
      assertValidKey(key);
      try {
        const response = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        return {
          size: response.ContentLength ?? 0,
          contentType: response.ContentType ?? FALLBACK_CONTENT_TYPE,
          ...(response.LastModified === undefined ? {} : { lastModified: response.LastModified }),
        };
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },

    async delete(key: string): Promise<void> {
      assertValidKey(key);
      try {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
      } catch (error) {
        // S3 itself answers 204 for a missing key; some compatible servers answer 404.
        if (!isNotFound(error)) throw error;
      }
    },

    publicUrl(key: string): string {
      assertValidKey(key);
      return `${baseUrl}/${key}`;
    },

    async signedUrl(key, { expiresIn, downloadName }): Promise<string> {
      assertValidKey(key);
      if (!isPrivateKey(key))
        throw new Error(`Signed URLs are only for keys under ${PRIVATE_PREFIX}: ${key}`);
      const command = new GetObjectCommand({
        Bucket: bucket,
        Key: key,
        ResponseContentDisposition: attachmentDisposition(downloadName),
      });
      return getSignedUrl(client, command, { expiresIn });
    },

    async ping(): Promise<void> {
      await client.send(new HeadBucketCommand({ Bucket: bucket }));
    },

    async *list({ prefix, pageSize }): AsyncGenerator<ListedObject[]> {
      // ListObjects (v1) with the last key seen as Marker: every S3-compatible service pages it the same way,
      // while some cannot produce v2 continuation tokens (s3rver builds them with DES, which OpenSSL 3 refuses).
      let marker: string | undefined;
      do {
        const response = await client.send(
          new ListObjectsCommand({
            Bucket: bucket,
            Prefix: prefix,
            MaxKeys: pageSize,
            ...(marker === undefined ? {} : { Marker: marker }),
          }),
        );
        const page: ListedObject[] = [];
        for (const object of response.Contents ?? []) {
          if (object.Key === undefined || object.LastModified === undefined) continue;
          page.push({ key: object.Key, size: object.Size ?? 0, lastModified: object.LastModified });
        }
        const last = response.Contents?.at(-1)?.Key;
        if (page.length > 0) yield page;
        marker = response.IsTruncated === true ? last : undefined;
      } while (marker !== undefined);
    },

    async abortIncompleteUploads({ prefix, startedBefore }): Promise<number | undefined> {
      let aborted = 0;
      let keyMarker: string | undefined;
      let uploadIdMarker: string | undefined;
      do {
        let response;
        try {
          response = await client.send(
            new ListMultipartUploadsCommand({
              Bucket: bucket,
              Prefix: prefix,
              ...(keyMarker === undefined ? {} : { KeyMarker: keyMarker }),
              ...(uploadIdMarker === undefined ? {} : { UploadIdMarker: uploadIdMarker }),
            }),
          );
        } catch (error) {
          if (isUnsupportedByServer(error)) return undefined;
          throw error;
        }
        for (const upload of response.Uploads ?? []) {
          if (upload.Key === undefined || upload.UploadId === undefined) continue;
          if (upload.Initiated === undefined || upload.Initiated >= startedBefore) continue;
          await client.send(
            new AbortMultipartUploadCommand({ Bucket: bucket, Key: upload.Key, UploadId: upload.UploadId }),
          );
          aborted += 1;
        }
        const more = response.IsTruncated === true;
        keyMarker = more ? response.NextKeyMarker : undefined;
        uploadIdMarker = more ? response.NextUploadIdMarker : undefined;
      } while (keyMarker !== undefined);
      return aborted;
    },
  };
}
