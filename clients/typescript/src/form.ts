// Request bodies for uploads. Blobs and byte arrays go through FormData. A stream cannot (FormData needs whole
// Blobs), so a form holding one is written out as multipart/form-data by hand and sent as a streamed body: a
// large file is never held in memory.
import type { FileData, FileInput } from './types.js';

export interface PreparedBody {
  body: NonNullable<RequestInit['body']>;
  /** Set for the hand-written stream; FormData brings its own content type. */
  contentType?: string;
  /** Streamed request bodies need `duplex: 'half'` in fetch. */
  streamed: boolean;
}

interface FilePart {
  name: string;
  data: FileData;
  fileName: string;
  contentType: string;
}

const isFileData = (value: unknown): value is FileData =>
  value instanceof Blob || value instanceof Uint8Array || value instanceof ReadableStream;

function filePart(name: string, input: FileInput): FilePart {
  const { data, fileName, contentType } = isFileData(input) ? { data: input } : input;
  const blobName = typeof File !== 'undefined' && data instanceof File ? data.name : undefined;
  const blobType = data instanceof Blob && data.type !== '' ? data.type : undefined;
  return {
    name,
    data,
    fileName: fileName ?? blobName ?? name,
    contentType: contentType ?? blobType ?? 'application/octet-stream',
  };
}

/** Splits a form into text fields (kept in order, sent first) and file parts. */
function splitForm(form: Record<string, unknown>): { fields: Array<[string, string]>; files: FilePart[] } {
  const fields: Array<[string, string]> = [];
  const files: FilePart[] = [];
  for (const [name, value] of Object.entries(form)) {
    if (value === undefined || value === null) continue;
    if (isFileData(value) || (typeof value === 'object' && 'data' in value)) {
      files.push(filePart(name, value as FileInput));
    } else {
      fields.push([name, typeof value === 'string' ? value : JSON.stringify(value)]);
    }
  }
  return { fields, files };
}

// As browsers do: quotes and line breaks in a part header are percent-encoded, never sent raw.
const headerValue = (text: string) => text.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');

function streamedBody(fields: Array<[string, string]>, files: FilePart[]): PreparedBody {
  const boundary = `----marketplace-client-${crypto.randomUUID()}`;
  const encoder = new TextEncoder();
  const head = (name: string, extra = '') =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${headerValue(name)}"${extra}\r\n`;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for (const [name, value] of fields) yield encoder.encode(`${head(name)}\r\n${value}\r\n`);
    for (const file of files) {
      const disposition = `; filename="${headerValue(file.fileName)}"`;
      yield encoder.encode(`${head(file.name, disposition)}Content-Type: ${file.contentType}\r\n\r\n`);
      if (file.data instanceof ReadableStream) {
        const reader = file.data.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          yield value;
        }
      } else if (file.data instanceof Blob) {
        yield new Uint8Array(await file.data.arrayBuffer());
      } else {
        yield file.data;
      }
      yield encoder.encode('\r\n');
    }
    yield encoder.encode(`--${boundary}--\r\n`);
  }
  const iterator = chunks();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel() {
      await iterator.return(undefined);
    },
  });
  return { body, contentType: `multipart/form-data; boundary=${boundary}`, streamed: true };
}

/** The request body for an upload form (text fields first: the server reads parts in order). */
export function formBody(form: Record<string, unknown>): PreparedBody {
  const { fields, files } = splitForm(form);
  if (files.some((file) => file.data instanceof ReadableStream)) return streamedBody(fields, files);
  const data = new FormData();
  for (const [name, value] of fields) data.append(name, value);
  for (const file of files) {
    const blob =
      file.data instanceof Blob
        ? file.data
        : new Blob([file.data as Uint8Array<ArrayBuffer>], { type: file.contentType });
    data.append(file.name, blob, file.fileName);
  }
  return { body: data, streamed: false };
}
