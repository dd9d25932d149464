// Avatar and banner uploads: accepted kinds, limits, metadata stripping, serving under CDN_URL, removal.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import type { TestUser } from '../helpers/factories.js';
import { expectError, multipart } from '../helpers/http.js';
import {
  EXIF_SECRET,
  corruptPng,
  gifImage,
  hugePng,
  jpegImage,
  notAnImage,
  pngImage,
  svgImage,
  textFile,
  webpImage,
} from '../fixtures/images.js';

type Kind = 'avatar' | 'banner';
interface ImageEndpoint {
  path: string;
  field: string;
  /** The profile field that holds the image URL. */
  profileField: 'image' | 'bannerUrl';
}
const ENDPOINTS: Record<Kind, ImageEndpoint> = {
  avatar: { path: '/users/me/image', field: 'image', profileField: 'image' },
  banner: { path: '/users/me/banner', field: 'banner', profileField: 'bannerUrl' },
};

describe('profile images', () => {
  let t: TestApp;
  let defaultAvatar: string;
  let png: Buffer;

  beforeAll(async () => {
    t = await buildTestApp();
    png = await pngImage(64, 48);
    const someone = await createUser(t.app);
    defaultAvatar = (await me(someone)).json().image as string;
  });
  afterAll(async () => t.close());

  function me(user: TestUser) {
    return t.app.inject({ method: 'GET', url: '/users/me', headers: user.headers });
  }

  async function upload(
    user: TestUser | null,
    kind: Kind,
    data: Buffer | undefined,
    name = 'upload.bin',
    type?: string,
  ) {
    const endpoint = ENDPOINTS[kind];
    const form = await multipart(endpoint.field, data === undefined ? undefined : { data, name, type });
    return t.app.inject({
      method: 'POST',
      url: endpoint.path,
      headers: { ...(user?.headers ?? {}), ...form.headers },
      payload: form.payload,
    });
  }

  /** Uploads and returns the new URL of the image. */
  async function uploaded(user: TestUser, kind: Kind, data: Buffer, name = 'picture'): Promise<string> {
    const res = await upload(user, kind, data, name);
    expect(res.statusCode, res.body).toBe(200);
    const url = kind === 'avatar' ? res.json().imageUrl : res.json().bannerUrl;
    expect(typeof url).toBe('string');
    return url as string;
  }

  const remove = (user: TestUser | null, kind: Kind) =>
    t.app.inject({ method: 'DELETE', url: ENDPOINTS[kind].path, headers: user?.headers ?? {} });

  /** Fetches a CDN URL through the app itself. */
  const fetchCdn = (url: string) => t.app.inject({ method: 'GET', url: new URL(url).pathname });

  describe('POST /users/me/image', () => {
    it.each([
      ['PNG', 'image/png', () => pngImage(80, 60), 'a.png'],
      ['JPG', 'image/jpeg', () => jpegImage(80, 60), 'a.jpg'],
      ['WEBP', 'image/webp', () => webpImage(80, 60), 'a.webp'],
    ])(
      'accepts a %s: 200 {imageUrl} under CDN_URL, shown as the profile image',
      async (_kind, mime, make, name) => {
        const user = await createUser(t.app);
        const res = await upload(user, 'avatar', await make(), name, mime);
        expect(res.statusCode, res.body).toBe(200);
        const { imageUrl } = res.json() as { imageUrl: string };
        expect(Object.keys(res.json())).toEqual(['imageUrl']);
        expect(imageUrl.startsWith(`${t.config.cdnUrl}/`)).toBe(true);
        expect(imageUrl).not.toBe(defaultAvatar);
        expect((await me(user)).json().image).toBe(imageUrl);
        expect((await t.app.inject({ method: 'GET', url: `/users/${user.id}` })).json().image).toBe(imageUrl);

        const served = await fetchCdn(imageUrl);
        expect(served.statusCode).toBe(200);
        expect(served.headers['content-type']).toBe(mime);
        expect(served.headers['cache-control']).toContain('immutable');
        expect((await sharp(served.rawPayload).metadata()).format).toBe(
          mime === 'image/jpeg' ? 'jpeg' : mime.slice(6),
        );
      },
    );

    it('serves a re-encoded image with the EXIF, GPS and XMP metadata stripped', async () => {
      const user = await createUser(t.app);
      const original = await jpegImage(120, 90, { exif: true });
      const before = await sharp(original).metadata();
      expect(before.exif).toBeDefined();
      expect(original.includes(EXIF_SECRET)).toBe(true);

      const served = await fetchCdn(await uploaded(user, 'avatar', original, 'holiday.jpg'));
      expect(served.statusCode).toBe(200);
      expect(served.headers['content-type']).toBe('image/jpeg');
      const after = await sharp(served.rawPayload).metadata();
      expect(after.format).toBe('jpeg');
      expect(after.exif).toBeUndefined();
      expect(after.xmp).toBeUndefined();
      expect(served.rawPayload.includes(EXIF_SECRET)).toBe(false);
      expect(served.rawPayload.equals(original)).toBe(false);
    });

    it('shrinks a large avatar to fit 512x512', async () => {
      const user = await createUser(t.app);
      const served = await fetchCdn(await uploaded(user, 'avatar', await pngImage(1024, 768)));
      const { width, height } = await sharp(served.rawPayload).metadata();
      expect(Math.max(width, height)).toBe(512);
    });

    it('deletes the previous image when a new one replaces it', async () => {
      const user = await createUser(t.app);
      const first = await uploaded(user, 'avatar', await pngImage(40, 40));
      const second = await uploaded(user, 'avatar', await pngImage(41, 41));
      expect(second).not.toBe(first);
      expectError(await fetchCdn(first), 404, 'NOT_FOUND');
      expect((await fetchCdn(second)).statusCode).toBe(200);
    });

    it.each([
      ['a GIF', () => gifImage(32, 32), 'a.gif', 'image/gif'],
      ['a text file', async () => textFile(), 'a.png', 'image/png'],
      ['a PDF', async () => notAnImage(), 'a.pdf', 'application/pdf'],
      ['an SVG', async () => svgImage(), 'a.svg', 'image/svg+xml'],
    ])(
      'refuses %s with 415 UNSUPPORTED_MEDIA_TYPE and keeps the old image',
      async (_label, make, name, type) => {
        const user = await createUser(t.app);
        const kept = await uploaded(user, 'avatar', png);
        expectError(await upload(user, 'avatar', await make(), name, type), 415, 'UNSUPPORTED_MEDIA_TYPE');
        expect((await me(user)).json().image).toBe(kept);
      },
    );

    it('refuses a file over 5 MiB with 413 PAYLOAD_TOO_LARGE', async () => {
      const user = await createUser(t.app);
      const big = Buffer.concat([png, Buffer.alloc(5 * 1024 * 1024 + 1 - png.length, 7)]);
      expect(big.length).toBe(5 * 1024 * 1024 + 1);
      expectError(await upload(user, 'avatar', big, 'big.png', 'image/png'), 413, 'PAYLOAD_TOO_LARGE');
      expect((await me(user)).json().image).toBe(defaultAvatar);
    });

    it('refuses an image over 25 megapixels with 413 PAYLOAD_TOO_LARGE', async () => {
      const user = await createUser(t.app);
      const huge = await hugePng();
      expect(huge.length).toBeLessThan(5 * 1024 * 1024);
      expectError(await upload(user, 'avatar', huge, 'huge.png', 'image/png'), 413, 'PAYLOAD_TOO_LARGE');
      expect((await me(user)).json().image).toBe(defaultAvatar);
    });

    it('goes by the bytes, not the declared name or type: a PNG sent as photo.jpg is stored as PNG', async () => {
      const user = await createUser(t.app);
      const res = await upload(user, 'avatar', await pngImage(50, 50), 'photo.jpg', 'image/jpeg');
      expect(res.statusCode, res.body).toBe(200);
      const served = await fetchCdn(res.json().imageUrl as string);
      expect(served.headers['content-type']).toBe('image/png');
      expect(served.headers['x-content-type-options']).toBe('nosniff');
    });

    it('answers 400 for an image that cannot be decoded, keeping the default avatar', async () => {
      const user = await createUser(t.app);
      expectError(
        await upload(user, 'avatar', await corruptPng(), 'broken.png', 'image/png'),
        400,
        'INVALID_REQUEST',
      );
      expect((await me(user)).json().image).toBe(defaultAvatar);
    });

    it('answers 400 when the image field is missing', async () => {
      const user = await createUser(t.app);
      const form = await multipart('image', undefined, { note: 'no file here' });
      const res = await t.app.inject({
        method: 'POST',
        url: '/users/me/image',
        headers: { ...user.headers, ...form.headers },
        payload: form.payload,
      });
      expectError(res, 400, 'INVALID_REQUEST');
    });

    it('answers 400 when the file is sent under another field name', async () => {
      const user = await createUser(t.app);
      const form = await multipart('avatar', { data: png, name: 'a.png', type: 'image/png' });
      const res = await t.app.inject({
        method: 'POST',
        url: '/users/me/image',
        headers: { ...user.headers, ...form.headers },
        payload: form.payload,
      });
      expectError(res, 400, 'INVALID_REQUEST');
    });

    it('answers 401 to anonymous callers', async () => {
      expectError(await upload(null, 'avatar', png, 'a.png', 'image/png'), 401, 'UNAUTHORIZED');
    });
  });

  describe('DELETE /users/me/image', () => {
    it('reverts to the default avatar and deletes the stored object', async () => {
      const user = await createUser(t.app);
      const url = await uploaded(user, 'avatar', png);
      expect((await fetchCdn(url)).statusCode).toBe(200);

      const res = await remove(user, 'avatar');
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().image).toBe(defaultAvatar);
      expect((await me(user)).json().image).toBe(defaultAvatar);
      expectError(await fetchCdn(url), 404, 'NOT_FOUND');
      // The default avatar itself is never deleted.
      expect((await fetchCdn(defaultAvatar)).statusCode).toBe(200);
    });

    it('is harmless without an uploaded image', async () => {
      const user = await createUser(t.app);
      const res = await remove(user, 'avatar');
      expect(res.statusCode).toBe(200);
      expect(res.json().image).toBe(defaultAvatar);
      expect((await fetchCdn(defaultAvatar)).statusCode).toBe(200);
    });

    it('answers 401 to anonymous callers', async () => {
      expectError(await remove(null, 'avatar'), 401, 'UNAUTHORIZED');
    });
  });

  describe('banner', () => {
    it('uploads a banner: 200 with bannerUrl under CDN_URL, in both profiles, served as an image', async () => {
      const user = await createUser(t.app);
      const res = await upload(
        user,
        'banner',
        await jpegImage(300, 100, { exif: true }),
        'banner.jpg',
        'image/jpeg',
      );
      expect(res.statusCode, res.body).toBe(200);
      const { bannerUrl } = res.json() as { bannerUrl: string };
      expect(bannerUrl.startsWith(`${t.config.cdnUrl}/`)).toBe(true);
      expect((await me(user)).json().bannerUrl).toBe(bannerUrl);
      expect((await t.app.inject({ method: 'GET', url: `/users/${user.id}` })).json().bannerUrl).toBe(
        bannerUrl,
      );
      // The avatar is untouched.
      expect((await me(user)).json().image).toBe(defaultAvatar);

      const served = await fetchCdn(bannerUrl);
      expect(served.statusCode).toBe(200);
      expect(served.headers['content-type']).toBe('image/jpeg');
      expect(served.headers['cache-control']).toContain('immutable');
      expect((await sharp(served.rawPayload).metadata()).exif).toBeUndefined();
      expect(served.rawPayload.includes(EXIF_SECRET)).toBe(false);
    });

    it('removes the banner: bannerUrl null and the object gone', async () => {
      const user = await createUser(t.app);
      const url = await uploaded(user, 'banner', await webpImage(200, 80));
      const res = await remove(user, 'banner');
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().bannerUrl).toBeNull();
      expect((await me(user)).json().bannerUrl).toBeNull();
      expectError(await fetchCdn(url), 404, 'NOT_FOUND');
    });

    it.each([
      ['a GIF', 415, 'UNSUPPORTED_MEDIA_TYPE', () => gifImage(32, 32)],
      ['a PDF', 415, 'UNSUPPORTED_MEDIA_TYPE', async () => notAnImage()],
      ['over 25 megapixels', 413, 'PAYLOAD_TOO_LARGE', () => hugePng()],
    ])('refuses %s', async (_label, status, code, make) => {
      const user = await createUser(t.app);
      expectError(await upload(user, 'banner', await make(), 'banner'), status, code);
      expect((await me(user)).json().bannerUrl).toBeNull();
    });

    it('answers 400 when the banner field is missing, 401 to anonymous callers', async () => {
      const user = await createUser(t.app);
      expectError(await upload(user, 'banner', undefined), 400, 'INVALID_REQUEST');
      expectError(await upload(null, 'banner', png, 'b.png'), 401, 'UNAUTHORIZED');
      expectError(await remove(null, 'banner'), 401, 'UNAUTHORIZED');
    });
  });
});
