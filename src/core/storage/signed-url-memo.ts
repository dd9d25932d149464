// Signed download links, kept for the rest of the second they were made in. A link's expiry is counted in whole
// seconds (and S3's signing date too), so within one second signing again gives exactly the same link; a file
// that is downloaded many times a second is signed once. Signing costs an HMAC (an S3 presign far more) per
// download otherwise: ~20% of a download's CPU time measured under load.
import type { SignedUrlOptions, Storage } from './storage.js';

/** Bounds memory: one short string per recently downloaded file. */
const MAX_ENTRIES = 1_000;

interface Entry {
  second: number;
  url: string;
}

export function memoizedSignedUrls(storage: Pick<Storage, 'signedUrl'>, now: () => Date) {
  const entries = new Map<string, Entry>();
  return async (key: string, options: SignedUrlOptions): Promise<string> => {
    const second = Math.floor(now().getTime() / 1000);
    const id = `${key}\n${options.expiresIn}\n${options.downloadName}`;
    const entry = entries.get(id);
    if (entry !== undefined && entry.second === second) return entry.url;
    const url = await storage.signedUrl(key, options);
    if (entry === undefined && entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
    entries.set(id, { second, url });
    return url;
  };
}
