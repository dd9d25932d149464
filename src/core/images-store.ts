// Stores processed images under content-addressed keys and swaps them into the row that points at them.
import { conflict, notFound } from './http/errors.js';
import { processImage } from './images.js';
import type { ProcessImageOptions, ProcessedImage } from './images.js';
import type { Storage } from './storage/storage.js';

/** `images/<scope>/<owner>/<hash>.<ext>`: a new upload gets a new URL, so the old one can be cached forever. */
export function imageKey(scope: string, ownerId: string, image: ProcessedImage): string {
  return `images/${scope}/${ownerId}/${image.sha256.slice(0, 32)}.${image.extension}`;
}

export interface ImageSlot {
  /** The key the row holds now (null: no image). */
  previous: string | null;
  /** Compare-and-set: point the row at `next` only while it still holds `previous`; false when it did not. */
  swap(next: string | null): Promise<boolean>;
  /** The key the row holds after a lost race; undefined when the row itself is gone. */
  current(): Promise<string | null | undefined>;
  /** For messages: "team logo", "avatar"… */
  what: string;
  /** For the 404 when the row is gone: "Team", "User"… */
  owner: string;
}

export interface NewImage {
  upload: Buffer;
  scope: string;
  ownerId: string;
  options: ProcessImageOptions;
}

/**
 * Replaces (or, with `replacement` null, removes) the image of a row (DESIGN §4.6): the new object is stored
 * first, then the row is swapped conditionally, then the old object is deleted. A lost race is a 409 and leaves
 * the winner's image in place. Returns the new key.
 */
export async function replaceStoredImage(
  storage: Storage,
  slot: ImageSlot,
  replacement: NewImage | null,
): Promise<string | null> {
  let key: string | null = null;
  if (replacement !== null) {
    const image = await processImage(replacement.upload, replacement.options);
    key = imageKey(replacement.scope, replacement.ownerId, image);
    await storage.put(key, image.data, { contentType: image.contentType, immutable: true });
  }
  const ours = key !== null && key !== slot.previous;
  let swapped: boolean;
  try {
    swapped = await slot.swap(key);
  } catch (error) {
    if (ours) await storage.delete(key!);
    throw error;
  }
  if (!swapped) {
    // Our object goes unless the winner stored the very same bytes (same content-addressed key).
    const current = await slot.current();
    if (ours && current !== key) await storage.delete(key!);
    if (current === undefined) throw notFound(slot.owner);
    throw conflict(`The ${slot.what} was changed by another request at the same time; try again`);
  }
  if (slot.previous !== null && slot.previous !== key) await storage.delete(slot.previous);
  return key;
}
