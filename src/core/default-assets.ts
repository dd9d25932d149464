// Built-in images referenced by the API (the default avatar), written to storage once so the /cdn route
// and an external CDN serve them like any other image.
import sharp from 'sharp';
import type { Storage } from './storage/storage.js';

export const DEFAULT_AVATAR_KEY = 'defaults/avatar-v1.png';

async function renderDefaultAvatar(): Promise<Buffer> {
  const svg = Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256">' +
      '<rect width="256" height="256" fill="#d7dce2"/>' +
      '<circle cx="128" cy="100" r="48" fill="#8a96a3"/>' +
      '<ellipse cx="128" cy="230" rx="84" ry="64" fill="#8a96a3"/></svg>',
  );
  return sharp(svg).png().toBuffer();
}

export async function ensureDefaultAssets(storage: Storage): Promise<void> {
  if ((await storage.head(DEFAULT_AVATAR_KEY)) !== undefined) return;
  await storage.put(DEFAULT_AVATAR_KEY, await renderDefaultAvatar(), {
    contentType: 'image/png',
    immutable: true,
  });
}
