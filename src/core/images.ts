// Every uploaded image goes through processImage: the kind comes from magic bytes (never the client's
// filename or mime type), limits are enforced from the header before any pixel is decoded, and the image is
// re-encoded so EXIF/GPS/XMP/ICC and comment metadata never reaches storage (DESIGN: uploaded images).
import { createHash } from 'node:crypto';
import { fileTypeFromBuffer } from 'file-type';
import sharp from 'sharp';
import type { Metadata, OutputInfo, Sharp } from 'sharp';
import { AppError, badRequest, payloadTooLarge, unsupportedMediaType } from './http/errors.js';
import { imageWork } from './image-work.js';

export type ImageKind = 'png' | 'jpeg' | 'webp' | 'gif';

export interface ImageLimits {
  maxBytes: number;
  maxPixels: number;
  maxFrames: number;
  /**
   * Decoded pixels over all frames of one animation. sharp decodes every frame at once (4 bytes a pixel):
   * without this, 25 MP × 200 frames would be 20 GB of RAM for a 5 MiB upload. It also bounds the CPU an upload
   * costs: re-encoding takes about 25 ms of CPU per megapixel of animation (bench/gif.ts).
   */
  maxAnimationPixels: number;
}

export const IMAGE_LIMITS: ImageLimits = {
  maxBytes: 5 * 1024 * 1024,
  maxPixels: 25_000_000,
  maxFrames: 200,
  // 20 MP: e.g. 480x270 for 150 frames, 500x500 for 80. At 50 MP one GIF cost 3 s of CPU (defect 21).
  maxAnimationPixels: 20_000_000,
};

export interface ProcessedImage {
  data: Buffer;
  kind: ImageKind;
  contentType: string;
  extension: string;
  /** Size of one frame: animated images are a strip of frames internally but callers care about one. */
  width: number;
  height: number;
  /** Hex SHA-256 of the re-encoded bytes. */
  sha256: string;
}

export interface ProcessImageOptions {
  /** GIF is only accepted where animation is wanted (description images). */
  allowGif?: boolean;
  limits?: ImageLimits;
  /** Fit inside this box without enlarging (e.g. avatars 512x512). */
  maxWidth?: number;
  maxHeight?: number;
}

const FORMATS: Record<ImageKind, { contentType: string; extension: string; label: string }> = {
  png: { contentType: 'image/png', extension: 'png', label: 'PNG' },
  jpeg: { contentType: 'image/jpeg', extension: 'jpg', label: 'JPEG' },
  webp: { contentType: 'image/webp', extension: 'webp', label: 'WEBP' },
  gif: { contentType: 'image/gif', extension: 'gif', label: 'GIF' },
};

// file-type reports an animated PNG as 'apng'; libvips decodes its default (first) image, so it is accepted
// and stored as a still PNG rather than refused.
const KIND_BY_DETECTED_EXT: Record<string, ImageKind> = {
  png: 'png',
  apng: 'png',
  jpg: 'jpeg',
  webp: 'webp',
  gif: 'gif',
};

const JPEG_QUALITY = 85;
const WEBP_QUALITY = 85;
const THUMBNAIL_QUALITY = 80;

export function contentHash(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function describeBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

function describePixels(pixels: number): string {
  return pixels >= 1_000_000 ? `${+(pixels / 1_000_000).toFixed(2)} megapixels` : `${pixels} pixels`;
}

const undecodable = () => badRequest('image could not be decoded');

async function detectKind(input: Buffer, allowGif: boolean): Promise<ImageKind> {
  const accepted = (['png', 'jpeg', 'webp', 'gif'] as const).filter((kind) => allowGif || kind !== 'gif');
  const acceptedText = accepted.map((kind) => FORMATS[kind].label).join(', ');
  const detected = await fileTypeFromBuffer(input);
  const kind = detected ? KIND_BY_DETECTED_EXT[detected.ext] : undefined;
  if (!kind || !accepted.includes(kind)) {
    const what = detected ? `${detected.mime} is` : 'this file type is';
    throw unsupportedMediaType(`Unsupported image type: ${what} not accepted here; use ${acceptedText}`);
  }
  return kind;
}

/** Header-only read: libvips loads lazily, so no pixel data is decoded yet. */
async function readHeader(input: Buffer): Promise<Metadata> {
  try {
    // The pixel limit is checked by hand right after, with a clearer message than sharp's.
    return await sharp(input, { limitInputPixels: false, failOn: 'error' }).metadata();
  } catch {
    throw undecodable();
  }
}

function encode(pipeline: Sharp, kind: ImageKind): Sharp {
  switch (kind) {
    case 'png':
      return pipeline.png();
    case 'jpeg':
      return pipeline.jpeg({ quality: JPEG_QUALITY, mozjpeg: true });
    case 'webp':
      return pipeline.webp({ quality: WEBP_QUALITY });
    case 'gif':
      // The source's palette is reused, so dithering against it again and a high quantisation effort only cost
      // time: together they were half of a GIF's re-encoding, for an identical output size (bench/gif.ts).
      return pipeline.gif({ effort: 1, dither: 0 });
  }
}

function toProcessed(kind: ImageKind, data: Buffer, info: OutputInfo): ProcessedImage {
  return {
    data,
    kind,
    contentType: FORMATS[kind].contentType,
    extension: FORMATS[kind].extension,
    width: info.width,
    height: info.pageHeight ?? info.height,
    sha256: contentHash(data),
  };
}

/**
 * Validates an untrusted upload and re-encodes it to the same kind with all metadata dropped.
 * 413 over maxBytes / maxPixels (one frame) / maxFrames; 415 for any kind not accepted here;
 * 400 when the bytes look like an image but cannot be decoded.
 */
export async function processImage(
  input: Buffer,
  options: ProcessImageOptions = {},
): Promise<ProcessedImage> {
  const limits = options.limits ?? IMAGE_LIMITS;
  // Cheapest check first: nothing else is worth doing for an oversized body.
  if (input.length > limits.maxBytes) {
    throw payloadTooLarge(`Image is larger than ${describeBytes(limits.maxBytes)}`);
  }
  const kind = await detectKind(input, options.allowGif ?? false);
  const header = await readHeader(input);
  // Both libraries sniff magic bytes; disagreeing means a crafted polyglot, which we will not guess about.
  if (header.format !== kind) throw undecodable();

  // Without `animated`, sharp reports one frame's size, whatever the number of pages.
  const pixels = header.width * header.height;
  if (pixels > limits.maxPixels) {
    throw payloadTooLarge(
      `Image is ${header.width}x${header.height} (${describePixels(pixels)}); the limit is ${describePixels(limits.maxPixels)}`,
    );
  }
  const frames = header.pages ?? 1;
  if (frames > limits.maxFrames) {
    throw payloadTooLarge(`Image has ${frames} frames; the limit is ${limits.maxFrames}`);
  }

  const animated = kind === 'gif' || (kind === 'webp' && frames > 1);
  const totalPixels = pixels * (animated ? frames : 1);
  if (totalPixels > limits.maxAnimationPixels && animated) {
    throw payloadTooLarge(
      `Animation is ${describePixels(totalPixels)} over all frames; the limit is ${describePixels(limits.maxAnimationPixels)}`,
    );
  }
  let pipeline = sharp(input, {
    limitInputPixels: Math.max(totalPixels, 1),
    animated,
    failOn: 'error',
  }).rotate(); // honour EXIF orientation now: the tag itself is about to be stripped
  if (options.maxWidth !== undefined || options.maxHeight !== undefined) {
    pipeline = pipeline.resize({
      width: options.maxWidth,
      height: options.maxHeight,
      fit: 'inside',
      withoutEnlargement: true,
    });
  }

  try {
    const { data, info } = await imageWork.run(() =>
      encode(pipeline, kind).toBuffer({ resolveWithObject: true }),
    );
    return toProcessed(kind, data, info);
  } catch (error) {
    if (error instanceof AppError) throw error; // the work queue's 503
    if (error instanceof Error && error.message.includes('exceeds pixel limit')) {
      throw payloadTooLarge(`Image is larger than ${describePixels(limits.maxPixels)}`);
    }
    throw undecodable();
  }
}

/**
 * A WEBP thumbnail that fits inside width x height without enlarging. Animated images contribute their first
 * frame only, since thumbnails are shown in listings where motion is unwanted.
 */
export async function makeThumbnail(
  image: ProcessedImage,
  width: number,
  height: number,
): Promise<ProcessedImage> {
  const { data, info } = await imageWork.run(() =>
    sharp(image.data, { animated: false, failOn: 'error' })
      .resize({ width, height, fit: 'inside', withoutEnlargement: true })
      .webp({ quality: THUMBNAIL_QUALITY })
      .toBuffer({ resolveWithObject: true }),
  );
  return toProcessed('webp', data, info);
}
