// Storage keys double as relative file paths (local driver) and URL paths (/cdn/<key>), so one strict
// grammar keeps both safe: no traversal, no absolute paths, nothing that needs escaping in a URL.

const SEGMENT = /^[A-Za-z0-9._-]+$/;

/** Keys under this prefix are private version files: served only through signed, expiring URLs. */
export const PRIVATE_PREFIX = 'files/';

export function isValidKey(key: string): boolean {
  if (key.length === 0 || key.length > 1024) return false;
  return key.split('/').every((segment) => SEGMENT.test(segment) && segment !== '.' && segment !== '..');
}

/**
 * Throws a plain Error: an invalid key is a bug in the caller (keys are built by the app, never taken
 * verbatim from users), so it must not be dressed up as a 4xx.
 */
export function assertValidKey(key: string): void {
  if (!isValidKey(key)) throw new Error(`Invalid storage key: ${JSON.stringify(key)}`);
}

export function isPrivateKey(key: string): boolean {
  return key.startsWith(PRIVATE_PREFIX);
}
