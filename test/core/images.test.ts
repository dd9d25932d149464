import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { contentHash, IMAGE_LIMITS, makeThumbnail, processImage } from '../../src/core/images.js';
import {
  animatedWebpImage,
  corruptPng,
  corruptPngHeader,
  EXIF_SECRET,
  gifImage,
  hugePng,
  jpegImage,
  notAnImage,
  pngImage,
  svgImage,
  textFile,
  webpImage,
} from '../fixtures/images.js';

const tooLarge = { statusCode: 413, code: 'PAYLOAD_TOO_LARGE' };
const unsupported = { statusCode: 415, code: 'UNSUPPORTED_MEDIA_TYPE' };
const undecodable = { statusCode: 400, code: 'INVALID_REQUEST', message: 'image could not be decoded' };

describe('processImage: accepted kinds', () => {
  it.each([
    ['png', pngImage, 'image/png', 'png'],
    ['jpeg', jpegImage, 'image/jpeg', 'jpg'],
    ['webp', webpImage, 'image/webp', 'webp'],
  ] as const)('re-encodes %s to the same kind', async (kind, make, contentType, extension) => {
    const result = await processImage(await make(120, 80));
    expect(result).toMatchObject({ kind, contentType, extension, width: 120, height: 80 });
    const meta = await sharp(result.data).metadata();
    expect(meta.format).toBe(kind);
    expect([meta.width, meta.height]).toEqual([120, 80]);
  });

  it('decides the kind from magic bytes, so the declared type does not matter', async () => {
    // processImage never sees a filename; a PNG that a client called "photo.jpg" is still a PNG.
    const result = await processImage(await pngImage(10, 10));
    expect(result.kind).toBe('png');
  });

  it('keeps GIF animation, frame size and timing when GIF is allowed', async () => {
    const result = await processImage(await gifImage(40, 30, 3), { allowGif: true });
    expect(result).toMatchObject({
      kind: 'gif',
      contentType: 'image/gif',
      extension: 'gif',
      width: 40,
      height: 30,
    });
    const meta = await sharp(result.data).metadata();
    expect(meta.format).toBe('gif');
    expect(meta.pages).toBe(3);
    expect(meta.delay).toEqual([100, 100, 100]);
  });

  it('keeps animated WEBP animated', async () => {
    const result = await processImage(await animatedWebpImage(40, 30, 4));
    expect(result).toMatchObject({ kind: 'webp', width: 40, height: 30 });
    expect((await sharp(result.data).metadata()).pages).toBe(4);
  });

  it('returns the sha256 of the re-encoded bytes', async () => {
    const result = await processImage(await pngImage(30, 30));
    expect(result.sha256).toBe(createHash('sha256').update(result.data).digest('hex'));
    expect(contentHash(result.data)).toBe(result.sha256);
    expect(result.sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('processImage: metadata', () => {
  it('strips EXIF, GPS and XMP', async () => {
    const input = await jpegImage(64, 48, { exif: true });
    const before = await sharp(input).metadata();
    expect(before.exif?.toString('latin1')).toContain(EXIF_SECRET);
    expect(before.xmp).toBeDefined();

    const result = await processImage(input);
    const after = await sharp(result.data).metadata();
    expect(after.exif).toBeUndefined();
    expect(after.xmp).toBeUndefined();
    expect(after.icc).toBeUndefined();
    expect(after.iptc).toBeUndefined();
    expect(result.data.includes(EXIF_SECRET)).toBe(false);
  });

  it('applies the EXIF orientation before dropping it', async () => {
    // Orientation 6 means "rotate 90° clockwise to display": stored 40x20, shown 20x40.
    const result = await processImage(await jpegImage(40, 20, { orientation: 6 }));
    expect([result.width, result.height]).toEqual([20, 40]);
    const meta = await sharp(result.data).metadata();
    expect(meta.orientation).toBeUndefined();
    expect([meta.width, meta.height]).toEqual([20, 40]);
  });
});

describe('processImage: refused kinds', () => {
  it('refuses GIF unless allowGif', async () => {
    const gif = await gifImage(20, 20, 2);
    await expect(processImage(gif)).rejects.toMatchObject(unsupported);
    await expect(processImage(gif, { allowGif: false })).rejects.toMatchObject(unsupported);
  });

  it.each([
    ['plain text', textFile],
    ['a PDF', notAnImage],
    ['an SVG', svgImage],
  ])('refuses %s with 415 naming the accepted kinds', async (_name, make) => {
    const error = await processImage(make()).catch((e: unknown) => e);
    expect(error).toMatchObject(unsupported);
    expect((error as Error).message).toContain('PNG, JPEG, WEBP');
    expect((error as Error).message).not.toContain('GIF');
  });

  it('names GIF among the accepted kinds where it is allowed', async () => {
    await expect(processImage(textFile(), { allowGif: true })).rejects.toThrow('PNG, JPEG, WEBP, GIF');
  });

  it('refuses an empty buffer with 415', async () => {
    await expect(processImage(Buffer.alloc(0))).rejects.toMatchObject(unsupported);
  });
});

describe('processImage: limits', () => {
  it('refuses more than maxBytes with 413 before looking at the content', async () => {
    const limits = { ...IMAGE_LIMITS, maxBytes: 100 };
    await expect(processImage(Buffer.alloc(101), { limits })).rejects.toMatchObject(tooLarge);
    await expect(processImage(await pngImage(64, 64), { limits })).rejects.toMatchObject(tooLarge);
  });

  it('accepts exactly maxBytes', async () => {
    const png = await pngImage(16, 16);
    await expect(
      processImage(png, { limits: { ...IMAGE_LIMITS, maxBytes: png.length } }),
    ).resolves.toBeDefined();
  });

  it('refuses more than 25 megapixels by default with 413', async () => {
    const huge = await hugePng(6000, 5000);
    expect(huge.length).toBeLessThan(IMAGE_LIMITS.maxBytes);
    const error = await processImage(huge).catch((e: unknown) => e);
    expect(error).toMatchObject(tooLarge);
    expect((error as Error).message).toContain('6000x5000');
  });

  it('refuses images over a custom pixel limit and accepts them at the limit', async () => {
    const png = await pngImage(50, 40);
    await expect(processImage(png, { limits: { ...IMAGE_LIMITS, maxPixels: 1999 } })).rejects.toMatchObject(
      tooLarge,
    );
    await expect(processImage(png, { limits: { ...IMAGE_LIMITS, maxPixels: 2000 } })).resolves.toMatchObject({
      width: 50,
    });
  });

  it('counts pixels per frame for animations', async () => {
    // 40x30 = 1200 px per frame, 3600 px over all frames.
    const gif = await gifImage(40, 30, 3);
    const limits = { ...IMAGE_LIMITS, maxPixels: 1200 };
    await expect(processImage(gif, { allowGif: true, limits })).resolves.toMatchObject({
      width: 40,
      height: 30,
    });
    await expect(
      processImage(gif, { allowGif: true, limits: { ...limits, maxPixels: 1199 } }),
    ).rejects.toMatchObject(tooLarge);
  });

  it('refuses more frames than maxFrames with 413', async () => {
    const gif = await gifImage(20, 20, 3);
    const limits = { ...IMAGE_LIMITS, maxFrames: 2 };
    await expect(processImage(gif, { allowGif: true, limits })).rejects.toMatchObject(tooLarge);
    await expect(processImage(await animatedWebpImage(20, 20, 3), { limits })).rejects.toMatchObject(
      tooLarge,
    );
    await expect(
      processImage(gif, { allowGif: true, limits: { ...limits, maxFrames: 3 } }),
    ).resolves.toBeDefined();
  });

  it('refuses an animation whose frames together exceed maxAnimationPixels with 413', async () => {
    // 20x20 × 3 frames = 1,200 decoded pixels: fine at the limit, refused one pixel under it.
    const gif = await gifImage(20, 20, 3);
    const limits = { ...IMAGE_LIMITS, maxAnimationPixels: 1200 };
    await expect(processImage(gif, { allowGif: true, limits })).resolves.toBeDefined();
    await expect(
      processImage(gif, { allowGif: true, limits: { ...limits, maxAnimationPixels: 1199 } }),
    ).rejects.toMatchObject(tooLarge);
    // A still image is bounded by maxPixels alone.
    await expect(
      processImage(await pngImage(40, 40), { limits: { ...limits, maxAnimationPixels: 1 } }),
    ).resolves.toBeDefined();
  });
});

describe('processImage: undecodable input', () => {
  it('answers 400 for a PNG whose pixel data is garbage', async () => {
    await expect(processImage(await corruptPng())).rejects.toMatchObject(undecodable);
  });

  it('answers 400 for a PNG whose header is garbage', async () => {
    await expect(processImage(corruptPngHeader())).rejects.toMatchObject(undecodable);
  });

  it('answers 400 for a truncated PNG', async () => {
    const png = await pngImage(200, 200);
    await expect(processImage(png.subarray(0, png.length / 2))).rejects.toMatchObject(undecodable);
  });

  it('answers 400 for a truncated JPEG', async () => {
    const jpeg = await jpegImage(200, 200);
    await expect(processImage(jpeg.subarray(0, jpeg.length / 2))).rejects.toMatchObject(undecodable);
  });
});

describe('processImage: resizing', () => {
  it('fits inside maxWidth x maxHeight keeping the aspect ratio', async () => {
    const result = await processImage(await pngImage(1000, 500), { maxWidth: 512, maxHeight: 512 });
    expect([result.width, result.height]).toEqual([512, 256]);
    const meta = await sharp(result.data).metadata();
    expect([meta.width, meta.height]).toEqual([512, 256]);
  });

  it('honours a single bound', async () => {
    const result = await processImage(await jpegImage(300, 600), { maxHeight: 100 });
    expect([result.width, result.height]).toEqual([50, 100]);
  });

  it('never enlarges', async () => {
    const result = await processImage(await webpImage(100, 50), { maxWidth: 512, maxHeight: 512 });
    expect([result.width, result.height]).toEqual([100, 50]);
  });

  it('resizes every frame of an animation', async () => {
    const result = await processImage(await gifImage(80, 40, 3), {
      allowGif: true,
      maxWidth: 40,
      maxHeight: 40,
    });
    expect([result.width, result.height]).toEqual([40, 20]);
    const meta = await sharp(result.data).metadata();
    expect(meta.pages).toBe(3);
    expect([meta.width, meta.height]).toEqual([40, 20]);
  });
});

describe('makeThumbnail', () => {
  it('makes a WEBP fitting inside the box', async () => {
    const image = await processImage(await pngImage(800, 600));
    const thumb = await makeThumbnail(image, 200, 200);
    expect(thumb).toMatchObject({
      kind: 'webp',
      contentType: 'image/webp',
      extension: 'webp',
      width: 200,
      height: 150,
    });
    const meta = await sharp(thumb.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 200, 150]);
    expect(thumb.sha256).toBe(contentHash(thumb.data));
  });

  it('does not enlarge small images', async () => {
    const thumb = await makeThumbnail(await processImage(await jpegImage(64, 32)), 256, 256);
    expect([thumb.width, thumb.height]).toEqual([64, 32]);
  });

  it('uses the first frame of an animation', async () => {
    const image = await processImage(await gifImage(100, 50, 3), { allowGif: true });
    const thumb = await makeThumbnail(image, 50, 50);
    expect([thumb.width, thumb.height]).toEqual([50, 25]);
    const meta = await sharp(thumb.data).metadata();
    expect(meta.pages ?? 1).toBe(1);
    expect([meta.width, meta.height]).toEqual([50, 25]);
  });
});
