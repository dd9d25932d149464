// The secret a game server sends its heartbeats with: "sk_" + 40 base62 characters from a CSPRNG, like the API
// keys of core/auth/credentials.ts (whose digest and display prefix it shares), but never a user credential.
import { randomInt } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 40;

export const SERVER_KEY_PATTERN = /^sk_[0-9A-Za-z]{40}$/;

export function newServerKey(): string {
  let out = 'sk_';
  for (let i = 0; i < SECRET_LENGTH; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

// Control characters (C0 and C1 but the line break between a MOTD's two lines), bidirectional overrides and
// isolates (they reorder the text around them on any page that shows it), and the game's § formatting codes.
// eslint-disable-next-line no-control-regex
const UNSAFE = /§.|[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/gsu;

/** Plain text as pages may show it: formatting and control characters removed, at most two lines, trimmed. */
export function plainText(value: string): string {
  return value.replace(UNSAFE, '').split('\n').slice(0, 2).join('\n').trim();
}
