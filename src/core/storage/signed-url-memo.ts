// Signed download links, kept for the rest of the second they were made in. A link's expiry is counted in whole
// seconds (and S3's signing date too), so within one second signing again gives exactly the same link; a file
// that is downloaded many times a second is signed once. Signing costs an HMAC (an S3 presign far more) per
// download otherwise: ~20% of a download's CPU time measured under load.
import { createChangeCache } from '../db/change-cache.js';
import type { SignedUrlOptions, Storage } from './storage.js';

/** Bounds memory: one short string per recently downloaded file. */
const MAX_ENTRIES = 1_000;

export function memoizedSignedUrls(storage: Pick<Storage, 'signedUrl'>, now: () => Date) {
  // The "version" a link is kept under is the current second.
  const links = createChangeCache<string>({
    changes: () => Math.floor(now().getTime() / 1000),
    maxEntries: MAX_ENTRIES,
  });
  return (key: string, options: SignedUrlOptions): Promise<string> =>
    links.get(`${key}\n${options.expiresIn}\n${options.downloadName}`, () => storage.signedUrl(key, options));
}
