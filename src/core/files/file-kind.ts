// What a version file is (its `fileType`) and the content type it is stored and served with (DESIGN §8
// "Uploads": magic bytes, then extension). The client's declared MIME type is never consulted.
import { fileTypeFromBuffer } from 'file-type';

/** Bytes of a file's start that detection looks at (file-type's own reasonable sample size). */
export const DETECTION_HEAD_BYTES = 4100;

export interface FileKind {
  /** Short lower-case kind such as 'jar', 'zip', 'png', 'txt'; 'bin' when nothing is known. */
  fileType: string;
  /** The type the object is stored and downloaded with. */
  contentType: string;
}

const OCTET_STREAM = 'application/octet-stream';
const UNKNOWN: FileKind = { fileType: 'bin', contentType: OCTET_STREAM };

/** The binary kinds the interface lists, all recognisable by their first bytes. */
const SIGNED_KIND_TYPES: Readonly<Record<string, string>> = {
  jar: 'application/java-archive',
  zip: 'application/zip',
  rar: 'application/vnd.rar',
  '7z': 'application/x-7z-compressed',
  tar: 'application/x-tar',
  gz: 'application/gzip',
  png: 'image/png',
  jpg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  mp4: 'video/mp4',
  webm: 'video/webm',
};

/** The text kinds the interface lists: no magic bytes, so the extension names them once the bytes are text. */
const XML_UTF8 = 'application/xml; charset=utf-8';
const TEXT_KIND_TYPES: Readonly<Record<string, string>> = {
  txt: 'text/plain; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  json: 'application/json; charset=utf-8',
  yaml: 'application/yaml; charset=utf-8',
  yml: 'application/yaml; charset=utf-8',
  toml: 'application/toml; charset=utf-8',
  xml: XML_UTF8,
};

/** Extensions that are another spelling of a signed kind, so a mismatching file under them is not that kind. */
const SIGNED_KIND_ALIASES: ReadonlySet<string> = new Set(['jpeg', 'tgz']);

/**
 * Types a browser could render or run. Downloads are attachments with nosniff, but the stored type is also what
 * a CDN in front of the bucket serves, so other detected kinds with such a type are kept as opaque bytes.
 */
const ACTIVE_CONTENT = /^text\/|html|xml|javascript|ecmascript|svg/i;

/** Lower-case extension of a file name ('archive.tar.gz' → 'gz'), or undefined when it has none usable. */
export function fileExtension(fileName: string): string | undefined {
  const dot = fileName.lastIndexOf('.');
  if (dot <= 0 || dot === fileName.length - 1) return undefined;
  const extension = fileName.slice(dot + 1).toLowerCase();
  return /^[a-z0-9]{1,16}$/.test(extension) ? extension : undefined;
}

/**
 * UTF-8 without NUL bytes. The head may end in the middle of a multi-byte character (it is cut at a byte
 * count), so an incomplete sequence at the very end is accepted.
 */
export function looksLikeUtf8Text(head: Buffer): boolean {
  if (head.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}

async function sniff(head: Buffer): Promise<{ ext: string; mime: string } | undefined> {
  try {
    return await fileTypeFromBuffer(head);
  } catch {
    // A malformed container header is an unknown kind, not a failed upload.
    return undefined;
  }
}

/**
 * Detects a file's kind from its first bytes (at most DETECTION_HEAD_BYTES are looked at) and its name:
 *
 * 1. Magic bytes decide when they match. A JAR is a ZIP, so within that family the name decides: `.jar` →
 *    'jar', `.zip` → 'zip'; under any other name file-type's guess stands (it says jar when it sees a
 *    `META-INF/MANIFEST.MF` entry in the head, which also happens for ZIPs that merely contain one, and zip
 *    for a jar whose manifest lies beyond the head). A gzipped tar counts as 'gz'. Other detected kinds keep
 *    file-type's extension and MIME type (opaque bytes when that type could render in a browser).
 * 2. Text kinds (txt, md, json, yaml, yml, toml, xml) come from the extension, and only when the bytes are
 *    UTF-8 without NUL bytes; otherwise the file is 'bin'.
 * 3. An extension naming one of the signed binary kinds (jar, png…) whose bytes do not match is 'bin': the
 *    name alone would make the API claim a kind the content is not.
 * 4. Any other extension is the fileType, served as application/octet-stream; no extension → 'bin'.
 */
export async function detectFileType(head: Buffer, fileName: string): Promise<FileKind> {
  const sample = head.subarray(0, DETECTION_HEAD_BYTES);
  const extension = fileExtension(fileName);
  const detected = await sniff(sample);

  if (detected !== undefined) {
    let fileType = detected.ext === 'tar.gz' ? 'gz' : detected.ext;
    if ((fileType === 'zip' || fileType === 'jar') && (extension === 'zip' || extension === 'jar')) {
      fileType = extension;
    }
    const signedType = SIGNED_KIND_TYPES[fileType];
    if (signedType !== undefined) return { fileType, contentType: signedType };
    if (fileType === 'xml') {
      // file-type also recognises UTF-16 XML, which the UTF-8 content type would misdescribe.
      return { fileType, contentType: looksLikeUtf8Text(sample) ? XML_UTF8 : 'application/xml' };
    }
    return { fileType, contentType: ACTIVE_CONTENT.test(detected.mime) ? OCTET_STREAM : detected.mime };
  }

  if (extension === undefined) return UNKNOWN;
  const textType = TEXT_KIND_TYPES[extension];
  if (textType !== undefined) {
    return looksLikeUtf8Text(sample) ? { fileType: extension, contentType: textType } : UNKNOWN;
  }
  if (SIGNED_KIND_TYPES[extension] !== undefined || SIGNED_KIND_ALIASES.has(extension)) return UNKNOWN;
  return { fileType: extension, contentType: OCTET_STREAM };
}
