// Picks the storage driver from configuration (STORAGE=local|s3).
import { join } from 'node:path';
import type { Config } from '../../config.js';
import type { Clock } from '../clock.js';
import { createLocalStorage } from './local.js';
import { createS3Storage } from './s3.js';
import type { Storage } from './storage.js';

export interface CreateStorageOptions {
  /** Local signed URLs take their expiry from this clock; pass the app's clock so tests can move time. */
  clock?: Clock;
}

export function createStorage(config: Config, options: CreateStorageOptions = {}): Storage {
  if (config.storage === 's3') {
    return createS3Storage({ ...config.s3, cdnUrl: config.cdnUrl });
  }
  return createLocalStorage({
    rootDir: join(config.dataDir, 'storage'),
    cdnUrl: config.cdnUrl,
    secret: config.secret,
    clock: options.clock,
  });
}

export { createLocalStorage } from './local.js';
export { createS3Storage } from './s3.js';
export type { Storage } from './storage.js';
