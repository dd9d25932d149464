// API keys (mk_…) and session tokens (ms_…): 40 base62 characters from a CSPRNG.
// Only a SHA-256 digest and a short display prefix are ever stored.
//
// API keys created since scoped keys (spec/extensions.md §5) end in a 6-character checksum, GitHub's token format
// idea: CRC32 of the `mk_` + 40 random characters, in base62, left-padded with '0' to 6 characters. Secret scanners
// validate a candidate offline, and the service refuses a mistyped key without reading the database.
// docs/api-keys.md documents the expression and the computation.
import { createHash, randomInt } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 40;
const CHECKSUM_LENGTH = 6;

function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

// CRC-32 (IEEE 802.3, the zlib/PNG one), written out so that no runtime version matters.
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

export function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text, 'utf8')) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** Base62 of an unsigned 32-bit number, left-padded with '0' to 6 characters (62^6 > 2^32). */
export function base62Checksum(value: number): string {
  let n = value >>> 0;
  let out = '';
  do {
    out = ALPHABET[n % 62]! + out;
    n = Math.floor(n / 62);
  } while (n > 0);
  return out.padStart(CHECKSUM_LENGTH, '0');
}

/** The checksum of a key body (`mk_` + 40 random characters). */
export const apiKeyChecksum = (body: string): string => base62Checksum(crc32(body));

export const newApiKey = (): string => {
  const body = `mk_${randomBase62(SECRET_LENGTH)}`;
  return body + apiKeyChecksum(body);
};
export const newSessionToken = (): string => `ms_${randomBase62(SECRET_LENGTH)}`;

export const digest = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** What a key list shows so its owner can recognise a key without revealing it. */
export const displayPrefix = (secret: string): string => secret.slice(0, 7);

/** A checksummed API key, as documented for secret scanners. */
export const CHECKSUMMED_API_KEY_PATTERN = /^mk_[0-9A-Za-z]{46}$/;

/** Any credential the service may accept: old-format keys and session tokens (40), checksummed keys (46). */
export const CREDENTIAL_PATTERN = /^(?:m[ks]_[0-9A-Za-z]{40}|mk_[0-9A-Za-z]{46})$/;

/** Whether a credential's checksum (if its format has one) is right: false means refused with no lookup. */
export function hasValidChecksum(secret: string): boolean {
  if (!CHECKSUMMED_API_KEY_PATTERN.test(secret)) return true;
  const body = secret.slice(0, 3 + SECRET_LENGTH);
  return apiKeyChecksum(body) === secret.slice(3 + SECRET_LENGTH);
}
