// API keys (mk_…) and session tokens (ms_…): 40 base62 characters from a CSPRNG.
// Only a SHA-256 digest and a short display prefix are ever stored.
import { createHash, randomInt } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 40;

function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

export const newApiKey = (): string => `mk_${randomBase62(SECRET_LENGTH)}`;
export const newSessionToken = (): string => `ms_${randomBase62(SECRET_LENGTH)}`;

export const digest = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** What a key list shows so its owner can recognise a key without revealing it. */
export const displayPrefix = (secret: string): string => secret.slice(0, 7);

export const CREDENTIAL_PATTERN = /^m[ks]_[0-9A-Za-z]{40}$/;
