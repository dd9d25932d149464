// Stores a processed image under a content-addressed key and swaps it in for an older one.
import type { ProcessedImage } from './images.js';
import type { Storage } from './storage/storage.js';

/** `images/<scope>/<owner>/<hash>.<ext>`: a new upload gets a new URL, so the old one can be cached forever. */
export function imageKey(scope: string, ownerId: string, image: ProcessedImage): string {
  return `images/${scope}/${ownerId}/${image.sha256.slice(0, 32)}.${image.extension}`;
}

export async function putImage(storage: Storage, key: string, image: ProcessedImage): Promise<void> {
  await storage.put(key, image.data, { contentType: image.contentType, immutable: true });
}

/** Deletes an image that was replaced or removed, unless the new one has the same key. */
export async function discardImage(
  storage: Storage,
  oldKey: string | null,
  newKey: string | null,
): Promise<void> {
  if (oldKey !== null && oldKey !== newKey) await storage.delete(oldKey);
}
