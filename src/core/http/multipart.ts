// Reading one-file multipart uploads on top of @fastify/multipart. Each route passes its own byte limit, which
// overrides the app-wide `fileSize`, and every parser failure comes out as an AppError with a stable code.
import { finished } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { Multipart, MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, badRequest, payloadTooLarge } from './errors.js';
import { refuseNul } from './input-guards.js';

export interface BufferedUpload {
  fieldName: string;
  /** Already passed through safeFileName. */
  fileName: string;
  /** As declared by the client: informational only, never a basis for trusting the content. */
  mimeType: string;
  data: Buffer;
  fields: Record<string, string>;
}

export interface StreamedUpload<T> {
  result: T;
  /** Already passed through safeFileName. */
  fileName: string;
  mimeType: string;
  fields: Record<string, string>;
}

export interface UploadInfo {
  fileName: string;
  mimeType: string;
}

const MAX_FILE_NAME_BYTES = 255;

function describeBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

const fileTooLarge = (fileField: string, maxBytes: number) =>
  payloadTooLarge(`${fileField} file is larger than ${describeBytes(maxBytes)}`);

const fileRequired = (fileField: string) =>
  badRequest(`${fileField} file is required`, { fields: { [fileField]: 'is required' } });

/**
 * Translates the plugin's own errors (plain FastifyErrors) into ours. `fromParser` is false for errors raised by
 * a stream consumer, which may be storage failures and must keep their own status.
 */
function mapParserError(error: unknown, fileField: string, maxBytes: number, fromParser = true): unknown {
  if (error instanceof AppError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return fileTooLarge(fileField, maxBytes);
    case 'FST_FILES_LIMIT':
      return badRequest(`Only one file may be uploaded, in the ${fileField} field`);
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return payloadTooLarge('Too many form fields');
    case 'FST_PROTO_VIOLATION':
    case 'FST_INVALID_JSON_FIELD_ERROR':
    case 'FST_MP_PREMATURE_CLOSE':
      return badRequest((error as Error).message);
    default:
      // busboy reports malformed bodies (bad boundary, truncated part…) as bare Errors with no status; a
      // TypeError or any other subclass is a bug and must stay a 500.
      if (fromParser && error instanceof Error && Object.getPrototypeOf(error) === Error.prototype) {
        return badRequest(`Malformed multipart body: ${error.message}`);
      }
      return error;
  }
}

/**
 * Room for the boundaries, part headers and text fields around the file: a body announcing more than the file
 * limit plus this is refused before a byte of it is read.
 */
export const MULTIPART_OVERHEAD_BYTES = 1024 * 1024;

/**
 * A response sent before the request body was read to the end (a 413 on Content-Length, a file cut at its
 * limit, any early error) closes the connection. Otherwise Node reads and discards the rest of the body to keep
 * the connection alive: a 1 GiB upload against a 100 MiB limit would be received in full after its 413.
 */
export function closeConnectionsWithUnreadBodies(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply) => {
    if (!request.raw.complete) reply.header('connection', 'close');
  });
}

/** Starts iterating the parts, refusing anything that is not multipart/form-data up front. */
function openParts(request: FastifyRequest, maxBytes: number): AsyncIterableIterator<Multipart> {
  if (!request.isMultipart()) throw badRequest('Expected multipart/form-data');
  const declared = Number(request.headers['content-length']);
  if (declared > maxBytes + MULTIPART_OVERHEAD_BYTES)
    throw payloadTooLarge(`Upload is larger than ${describeBytes(maxBytes)}`);
  // files: 1 makes busboy skip (rather than buffer) any second file and report it, whatever the app config.
  return request.parts({ limits: { fileSize: maxBytes, files: 1 } });
}

function collectField(part: Exclude<Multipart, MultipartFile>, fields: Record<string, string>): void {
  const name = part.fieldname;
  // Silently truncated values would be stored as if complete, so an over-long field is an error instead.
  if (part.valueTruncated || part.fieldnameTruncated) throw payloadTooLarge(`Field ${name} is too long`);
  // A repeated name has no single meaning (first? last?), so it is refused rather than guessed.
  if (Object.hasOwn(fields, name)) {
    throw badRequest(`Field ${name} was sent more than once`, {
      fields: { [name]: 'was sent more than once' },
    });
  }
  const value = part.value;
  // Fields sent with a JSON content type arrive parsed; keep them as the text the client sent.
  fields[name] = typeof value === 'string' ? value : JSON.stringify(value);
  refuseNul(name, 'body');
  refuseNul(fields[name], `body.${name}`);
}

/**
 * At the size limit busboy stops passing data on but ends the file stream only at the part's closing boundary,
 * which a client sending an endless (chunked) body never sends: readers would wait, and the body be read, for
 * ever. So the stream fails with the 413 right at the limit, which also stops the parser reading the request;
 * the response then closes the connection (closeConnectionsWithUnreadBodies).
 */
function failAtLimit(part: MultipartFile, fileField: string, maxBytes: number): void {
  part.file.once('limit', () => part.file.destroy(fileTooLarge(fileField, maxBytes)));
}

/** Throws for a file part under the wrong name, after letting the parser discard its bytes. */
function assertFileField(part: MultipartFile, fileField: string): void {
  if (part.fieldname === fileField) return;
  part.file.resume();
  throw badRequest(`Unexpected file field ${part.fieldname}: send the file as ${fileField}`, {
    fields: { [part.fieldname]: 'is not a file field' },
  });
}

/**
 * Reads a multipart request whose one file field is `fileField`, buffering at most `maxBytes` of it: beyond
 * that the parser stops keeping data and this throws 413. Text fields before and after the file are collected.
 * A missing (or empty) file is a 400, so is a file under another name, a second file, or a body that is not
 * multipart/form-data.
 */
export async function readBufferedUpload(
  request: FastifyRequest,
  fileField: string,
  maxBytes: number,
): Promise<BufferedUpload> {
  const fields: Record<string, string> = {};
  let upload: Omit<BufferedUpload, 'fields'> | undefined;
  try {
    for await (const part of openParts(request, maxBytes)) {
      if (part.type === 'field') {
        collectField(part, fields);
        continue;
      }
      assertFileField(part, fileField);
      failAtLimit(part, fileField, maxBytes);
      const data = await part.toBuffer();
      // Covers an app registering the plugin with throwFileSizeLimit: false, where toBuffer truncates silently.
      if (part.file.truncated) throw fileTooLarge(fileField, maxBytes);
      upload = {
        fieldName: part.fieldname,
        // The plugin types filename as string, but a part sent without one (a blank file input) has none.
        fileName: safeFileName(part.filename ?? ''),
        mimeType: part.mimetype,
        data,
      };
    }
  } catch (error) {
    throw mapParserError(error, fileField, maxBytes);
  }
  // Browsers send an empty, nameless file part when the file input was left blank.
  if (!upload || upload.data.length === 0) throw fileRequired(fileField);
  return { ...upload, fields };
}

/**
 * Streaming variant for large files (version files). `consume` receives the live file stream and must read it
 * to the end (e.g. pipe it to storage); its result is returned with the text fields seen before and after the
 * file.
 *
 * When the file exceeds `maxBytes` the stream simply ends early, so `consume` usually succeeds with a truncated
 * file: this function then throws 413. Likewise a second file or a malformed tail of the body is only noticed
 * after `consume` returned. In every such case the caller must delete whatever `consume` stored; wrap the call
 * in try/catch and clean up in the catch.
 */
export async function readStreamedUpload<T>(
  request: FastifyRequest,
  fileField: string,
  maxBytes: number,
  consume: (stream: Readable, info: UploadInfo) => Promise<T>,
): Promise<StreamedUpload<T>> {
  const fields: Record<string, string> = {};
  let upload: Omit<StreamedUpload<T>, 'fields'> | undefined;
  let consumerFailed = false;
  try {
    for await (const part of openParts(request, maxBytes)) {
      if (part.type === 'field') {
        collectField(part, fields);
        continue;
      }
      assertFileField(part, fileField);
      failAtLimit(part, fileField, maxBytes);
      const info = { fileName: safeFileName(part.filename ?? ''), mimeType: part.mimetype };
      const result = await consume(part.file, info).catch((error: unknown) => {
        consumerFailed = true;
        // Let the parser run to the end of the body so the connection is left in a usable state.
        part.file.resume();
        throw error;
      });
      // A consumer that stopped early would stall the parser and leave `truncated` undecided, so drain the rest
      // (bounded by the size limit, as busboy stops passing data on beyond it).
      if (!part.file.readableEnded && !part.file.destroyed) {
        part.file.resume();
        await finished(part.file);
      }
      if (part.file.truncated) throw fileTooLarge(fileField, maxBytes);
      upload = { result, ...info };
    }
  } catch (error) {
    throw mapParserError(error, fileField, maxBytes, !consumerFailed);
  }
  if (!upload) throw fileRequired(fileField);
  return { ...upload, fields };
}

// C0 and C1 control characters, DEL, quotes and backticks: they break Content-Disposition headers, shells and
// log lines, and no legitimate file name needs them.
// eslint-disable-next-line no-control-regex -- finding control characters is exactly the job here
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f"'`]/g;
// Bidi overrides and zero-width characters let a name display differently from what it is ("exe.txt").
const DECEPTIVE_CHARS = /[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/** Cuts a string to at most `maxBytes` of UTF-8 without splitting a code point. */
function truncateUtf8(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char, 'utf8');
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += char.length;
  }
  return text.slice(0, end);
}

/**
 * Reduces a client-supplied file name to a safe base name: no directories (either separator), control
 * characters or quotes, whitespace collapsed, at most 255 bytes of UTF-8 with the extension kept, never empty
 * ('file'), never '.' or '..'.
 */
export function safeFileName(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? '';
  let clean = base
    .normalize('NFC')
    .replace(UNSAFE_CHARS, ' ')
    .replace(DECEPTIVE_CHARS, '')
    .replace(/\s+/g, ' ');
  // Leading dots would make a hidden file, and a name of only dots means "this/parent directory".
  clean = clean.trim().replace(/^\.+/, '').trim();
  if (!clean) return 'file';
  if (Buffer.byteLength(clean, 'utf8') <= MAX_FILE_NAME_BYTES) return clean;

  const dot = clean.lastIndexOf('.');
  const extension = dot > 0 ? clean.slice(dot) : '';
  // An "extension" too long to be one is just part of the name, and is cut with the rest.
  if (extension && Buffer.byteLength(extension, 'utf8') <= 32) {
    const stem = truncateUtf8(
      clean.slice(0, dot),
      MAX_FILE_NAME_BYTES - Buffer.byteLength(extension, 'utf8'),
    );
    return stem.trimEnd() + extension;
  }
  return truncateUtf8(clean, MAX_FILE_NAME_BYTES).trimEnd();
}
