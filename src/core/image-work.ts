// Image decoding and re-encoding (sharp) is the heaviest CPU work a request can cause: a GIF at the animation
// limit costs about a second of CPU (issue 11, defect 21). It all goes through one process-wide queue that runs
// at most IMAGE_WORKERS jobs at once, each on one libvips thread, so image uploads can use at most that many
// cores and the event loop keeps serving everything else. A burst beyond the queue's bound is refused with 503
// rather than piling up decoded frames in memory.
import { availableParallelism } from 'node:os';
import sharp from 'sharp';
import { AppError } from './http/errors.js';

export interface WorkQueue {
  /** Runs `task` when a slot is free; refuses with 503 when `maxWaiting` tasks already wait. */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Tasks running now. */
  readonly active: number;
  /** Tasks waiting for a slot. */
  readonly waiting: number;
}

export function createWorkQueue(options: { concurrency: number; maxWaiting: number }): WorkQueue {
  const { concurrency, maxWaiting } = options;
  const queue: Array<() => void> = [];
  let active = 0;

  const release = () => {
    active -= 1;
    const next = queue.shift();
    if (next !== undefined) {
      active += 1;
      next();
    }
  };

  return {
    async run<T>(task: () => Promise<T>): Promise<T> {
      if (active >= concurrency) {
        if (queue.length >= maxWaiting) {
          throw new AppError(503, 'SERVER_BUSY', 'Too many images are being processed; retry in a moment');
        }
        // The slot is handed over by release(), which counts it as active before waking us.
        await new Promise<void>((resolve) => queue.push(resolve));
      } else {
        active += 1;
      }
      try {
        return await task();
      } finally {
        release();
      }
    },
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
  };
}

/** One core stays free for the event loop (and the database) on small machines; never fewer than one job. */
export const IMAGE_WORKERS = Math.max(1, availableParallelism() - 1);
/** About 5 MiB of upload held per waiting job: 32 bound the queue's memory to roughly 160 MiB. */
export const IMAGE_QUEUE_LIMIT = 32;

// libvips would otherwise spread one image over every core; the queue above is what decides parallelism.
sharp.concurrency(1);

/** The queue every sharp pipeline of the app runs through (images.ts). */
export const imageWork = createWorkQueue({ concurrency: IMAGE_WORKERS, maxWaiting: IMAGE_QUEUE_LIMIT });
