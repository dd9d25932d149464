// HMAC-signed download links for the local driver (DESIGN §8 "Signed URLs").
//
// Mapping: a version file's storage key already starts with `files/` (e.g. `files/<versionId>/<fileId>`)
// and its URL is `${cdnUrl}/${key}` — the same mapping as publicUrl(), so the /cdn route turns a URL path
// back into a storage key without special cases.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { assertValidKey, isPrivateKey, PRIVATE_PREFIX } from './keys.js';

export interface SignUrlInput {
  cdnUrl: string;
  key: string;
  downloadName: string;
  /** Unix seconds. */
  expiresAt: number;
  secret: string;
}

export interface VerifySignatureInput {
  key: string;
  /** Unix seconds, as received in the query string. */
  expires: string | number;
  name: string;
  signature: string;
  secret: string;
  now: Date;
}

const SIGNATURE_PATTERN = /^[0-9a-f]{64}$/;
const EXPIRES_PATTERN = /^\d{1,15}$/;

function hmac(secret: string, key: string, expires: string, name: string): Buffer {
  // Newline separators cannot occur in a key or in the digits of `expires`, and the name comes last,
  // so no two (key, expires, name) triples produce the same input.
  return createHmac('sha256', secret).update(`${key}\n${expires}\n${name}`, 'utf8').digest();
}

export function signUrl({ cdnUrl, key, downloadName, expiresAt, secret }: SignUrlInput): string {
  assertValidKey(key);
  if (!isPrivateKey(key)) throw new Error(`Signed URLs are only for keys under ${PRIVATE_PREFIX}: ${key}`);
  if (!Number.isSafeInteger(expiresAt) || expiresAt < 0) throw new Error(`Invalid expiresAt: ${expiresAt}`);
  const expires = String(expiresAt);
  const signature = hmac(secret, key, expires, downloadName).toString('hex');
  const query = new URLSearchParams({ expires, name: downloadName, signature });
  return `${cdnUrl.replace(/\/+$/, '')}/${key}?${query.toString()}`;
}

export function verifySignature({
  key,
  expires,
  name,
  signature,
  secret,
  now,
}: VerifySignatureInput): boolean {
  const expiresText = String(expires);
  if (!EXPIRES_PATTERN.test(expiresText)) return false;
  if (now.getTime() >= Number(expiresText) * 1000) return false;
  // Fixed-length hex check first: Buffer.from(…, 'hex') silently drops bad characters, and
  // timingSafeEqual throws on a length mismatch instead of returning false.
  if (!SIGNATURE_PATTERN.test(signature)) return false;
  const expected = hmac(secret, key, expiresText, name);
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Seconds until a verified link expires (for Cache-Control: private, max-age). */
export function secondsRemaining(expires: string | number, now: Date): number {
  return Math.max(0, Number(expires) - Math.floor(now.getTime() / 1000));
}

/** Everything outside printable ASCII, plus the characters a quoted-string would need escaped. */
function asciiFallback(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, '_').trim();
  return fallback === '' ? 'download' : fallback;
}

/** RFC 8187 value-chars: encodeURIComponent leaves a few characters that attr-char does not allow. */
function encodeRfc8187(name: string): string {
  // encodeURIComponent throws on lone surrogates, which a JSON-supplied file name can contain.
  const wellFormed = name.replace(
    /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    '\ufffd',
  );
  return encodeURIComponent(wellFormed).replace(
    /['()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** `attachment` with an ASCII fallback for old clients and the exact UTF-8 name for the rest (RFC 6266). */
export function attachmentDisposition(name: string): string {
  return `attachment; filename="${asciiFallback(name)}"; filename*=UTF-8''${encodeRfc8187(name)}`;
}
