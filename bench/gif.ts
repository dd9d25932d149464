// `npx tsx bench/gif.ts`: CPU and wall time of re-encoding the largest animated GIF the upload limits accept,
// alone and four at once, and how late the event loop runs meanwhile (issue 11, defect 21). GIF_WIDTH,
// GIF_HEIGHT and GIF_FRAMES choose the animation (default: the limits' worst case).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import sharp from 'sharp';
import { IMAGE_LIMITS, processImage } from '../src/core/images.js';

const width = Number(process.env['GIF_WIDTH'] ?? 500);
const height = Number(process.env['GIF_HEIGHT'] ?? 500);
const frames = Number(process.env['GIF_FRAMES'] ?? IMAGE_LIMITS.maxFrames);

/**
 * Every frame different (checker blocks that move each frame), so no frame is a duplicate the encoder could
 * drop, yet flat enough that 200 frames of 500x500 stay under the 5 MiB upload limit.
 */
async function worstGif(): Promise<Buffer> {
  const strip = Buffer.alloc(width * height * frames * 4);
  for (let frame = 0; frame < frames; frame++) {
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const offset = ((frame * height + y) * width + x) * 4;
        const block = ((x + frame * 2) >> 5) + ((y + frame) >> 5);
        strip[offset] = (block * 40) & 0xff;
        strip[offset + 1] = (frame * 7) & 0xff;
        strip[offset + 2] = block & 1 ? 200 : 40;
        strip[offset + 3] = 255;
      }
    }
  }
  return sharp(strip, { raw: { width, height: height * frames, channels: 4, pageHeight: height } })
    .gif({ loop: 0, delay: Array.from({ length: frames }, () => 50) })
    .toBuffer();
}

async function measure(label: string, gif: Buffer, concurrent: number): Promise<void> {
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const outcomes = await Promise.allSettled(
    Array.from({ length: concurrent }, () => processImage(gif, { allowGif: true })),
  );
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  lag.disable();
  const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
  const reasons = refused.map((outcome) => String((outcome as PromiseRejectedResult).reason?.message));
  console.log(
    `${label}: wall ${(wall / 1000).toFixed(2)} s, CPU ${((used.user + used.system) / 1e6).toFixed(2)} s, ` +
      `event-loop delay p99 ${(lag.percentile(99) / 1e6).toFixed(1)} ms max ${(lag.max / 1e6).toFixed(1)} ms` +
      (refused.length > 0 ? `, refused ${refused.length}: ${[...new Set(reasons)].join('; ')}` : ''),
  );
}

const gif = await worstGif();
console.log(
  `GIF ${width}x${height} x ${frames} frames = ${((width * height * frames) / 1e6).toFixed(1)} MP, ` +
    `${(gif.length / 1024 / 1024).toFixed(2)} MiB (limit ${IMAGE_LIMITS.maxBytes / 1024 / 1024} MiB)`,
);
await measure('one upload', gif, 1);
await measure('four at once', gif, 4);
