// Turns stored object keys into the public URLs the API shows.
import { DEFAULT_AVATAR_KEY } from './default-assets.js';
import type { Storage } from './storage/storage.js';

export interface MediaUrls {
  /** Public URL of an optional image (banner, logo…), null when there is none. */
  url(key: string | null): string | null;
  /** A user's avatar: the uploaded image or the built-in default avatar. */
  avatar(key: string | null): string;
}

export function createMediaUrls(storage: Pick<Storage, 'publicUrl'>): MediaUrls {
  const defaultAvatar = storage.publicUrl(DEFAULT_AVATAR_KEY);
  return {
    url: (key) => (key === null ? null : storage.publicUrl(key)),
    avatar: (key) => (key === null ? defaultAvatar : storage.publicUrl(key)),
  };
}
