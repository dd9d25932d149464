// loadConfig: the only reader of the environment. Defaults, validation that names the variable, and the
// generated-once SECRET.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const GOOD_SECRET = 'a-secret-of-at-least-thirty-two-characters!';
const tempDirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'marketplace-config-'));
  tempDirs.push(dir);
  return dir;
}

/** An environment that loads on its own, so each case changes only the variable under test. */
const baseEnv = (extra: Record<string, string> = {}) => ({
  DATA_DIR: tempDir(),
  SECRET: GOOD_SECRET,
  ...extra,
});

function configErrorOf(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

afterEach(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('loadConfig', () => {
  describe('defaults', () => {
    it('serves on 127.0.0.1:3000 with local storage, rate limits on and 100 MiB files', () => {
      const env = baseEnv();
      const config = loadConfig(env);
      expect(config.port).toBe(3000);
      expect(config.host).toBe('127.0.0.1');
      expect(config.storage).toBe('local');
      expect(config.rateLimit).toBe(true);
      expect(config.maxFileBytes).toBe(100 * 1024 * 1024);
      expect(config.publicUrl).toBe('http://127.0.0.1:3000');
      expect(config.cdnUrl).toBe('http://127.0.0.1:3000/cdn');
      expect(config.databaseUrl).toBeUndefined();
      expect(config.redisUrl).toBeUndefined();
      expect(config.rateLimitRedisTimeoutMs).toBe(250);
      expect(config.corsOrigins).toEqual([]);
      expect(config.trustProxy).toBe(false);
      expect(config.migrate).toBe(true);
      expect(config.logLevel).toBe('info');
      expect(config.dataDir).toBe(resolve(env.DATA_DIR));
      expect(config.secret).toBe(GOOD_SECRET);
    });

    it('derives CDN_URL from PUBLIC_URL (without a trailing slash)', () => {
      const config = loadConfig(baseEnv({ PUBLIC_URL: 'https://api.example.com/' }));
      expect(config.publicUrl).toBe('https://api.example.com');
      expect(config.cdnUrl).toBe('https://api.example.com/cdn');
    });

    it('keeps an explicit CDN_URL', () => {
      const config = loadConfig(
        baseEnv({ PUBLIC_URL: 'https://api.example.com', CDN_URL: 'https://cdn.example.com' }),
      );
      expect(config.cdnUrl).toBe('https://cdn.example.com');
    });

    it('reads explicit values', () => {
      const config = loadConfig(
        baseEnv({
          PORT: '8080',
          HOST: '0.0.0.0',
          RATE_LIMIT: 'off',
          MAX_FILE_MB: '7',
          CORS_ORIGINS: 'https://a.example, https://b.example',
          DATABASE_URL: 'postgres://u@db:5432/x',
          REDIS_URL: 'redis://cache:6379',
          RATE_LIMIT_REDIS_TIMEOUT_MS: '40',
        }),
      );
      expect(config.port).toBe(8080);
      expect(config.host).toBe('0.0.0.0');
      expect(config.rateLimit).toBe(false);
      expect(config.maxFileBytes).toBe(7 * 1024 * 1024);
      expect(config.corsOrigins).toEqual(['https://a.example', 'https://b.example']);
      expect(config.databaseUrl).toBe('postgres://u@db:5432/x');
      expect(config.redisUrl).toBe('redis://cache:6379');
      expect(config.rateLimitRedisTimeoutMs).toBe(40);
      expect(config.publicUrl).toBe('http://0.0.0.0:8080');
    });

    it('accepts STORAGE=s3 with a bucket', () => {
      const config = loadConfig(baseEnv({ STORAGE: 's3', S3_BUCKET: 'assets' }));
      expect(config.storage).toBe('s3');
      expect(config.s3.bucket).toBe('assets');
    });
  });

  describe('events and webhooks', () => {
    it('default to the documented values, the settle window left to the dialect', () => {
      expect(loadConfig(baseEnv()).events).toEqual({
        retentionDays: 90,
        outboundAllowPrivate: false,
        webhookWorker: true,
        webhookConcurrency: 8,
        webhookTimeoutMs: 10_000,
        webhookPollMs: 250,
        webhookMaxBodyBytes: 256 * 1024,
        feedSettleMs: undefined,
      });
    });

    it('read explicit values and refuse out-of-range ones', () => {
      const config = loadConfig(
        baseEnv({
          EVENT_RETENTION_DAYS: '7',
          OUTBOUND_ALLOW_PRIVATE: 'true',
          WEBHOOK_WORKER: 'off',
          WEBHOOK_CONCURRENCY: '32',
          WEBHOOK_TIMEOUT_MS: '5000',
          WEBHOOK_POLL_MS: '100',
          WEBHOOK_MAX_BODY_KB: '64',
          EVENT_FEED_SETTLE_MS: '0',
        }),
      );
      expect(config.events).toEqual({
        retentionDays: 7,
        outboundAllowPrivate: true,
        webhookWorker: false,
        webhookConcurrency: 32,
        webhookTimeoutMs: 5000,
        webhookPollMs: 100,
        webhookMaxBodyBytes: 64 * 1024,
        feedSettleMs: 0,
      });
      for (const [name, value] of [
        ['EVENT_RETENTION_DAYS', '0'],
        ['WEBHOOK_CONCURRENCY', '0'],
        ['WEBHOOK_TIMEOUT_MS', '60001'],
        ['WEBHOOK_POLL_MS', 'soon'],
        ['OUTBOUND_ALLOW_PRIVATE', 'maybe'],
        ['EVENT_FEED_SETTLE_MS', '-1'],
      ] as const) {
        expect(configErrorOf(baseEnv({ [name]: value })).message).toContain(name);
      }
    });
  });

  describe('invalid values throw a ConfigError naming the variable', () => {
    it.each([
      ['PORT', { PORT: 'abc' }],
      ['PORT', { PORT: '70000' }],
      ['PORT', { PORT: '-1' }],
      ['STORAGE', { STORAGE: 'ftp' }],
      ['RATE_LIMIT', { RATE_LIMIT: 'maybe' }],
      ['MAX_FILE_MB', { MAX_FILE_MB: '0' }],
      ['MAX_FILE_MB', { MAX_FILE_MB: 'lots' }],
      ['PUBLIC_URL', { PUBLIC_URL: 'notaurl' }],
      ['PUBLIC_URL', { PUBLIC_URL: 'ftp://files.example' }],
      ['CDN_URL', { CDN_URL: 'javascript:alert(1)' }],
      ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }],
      ['REDIS_URL', { REDIS_URL: 'http://x' }],
      ['RATE_LIMIT_REDIS_TIMEOUT_MS', { RATE_LIMIT_REDIS_TIMEOUT_MS: '0' }],
      ['RATE_LIMIT_REDIS_TIMEOUT_MS', { RATE_LIMIT_REDIS_TIMEOUT_MS: 'fast' }],
      ['S3_BUCKET', { STORAGE: 's3' }],
      ['SECRET', { SECRET: 'too-short' }],
      ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ])('%s (%j)', (variable, env) => {
      const error = configErrorOf(baseEnv(env));
      expect(error.name).toBe('ConfigError');
      expect(error.message).toContain(variable);
    });
  });

  describe('SECRET', () => {
    it('is generated once into DATA_DIR/secret.key when unset, and reused on the next load', () => {
      const dataDir = join(tempDir(), 'nested', 'data');
      const first = loadConfig({ DATA_DIR: dataDir });
      const file = join(dataDir, 'secret.key');
      expect(existsSync(file)).toBe(true);
      expect(first.secret.length).toBeGreaterThanOrEqual(32);
      expect(readFileSync(file, 'utf8').trim()).toBe(first.secret);
      if (process.platform !== 'win32') expect(statSync(file).mode & 0o077).toBe(0);

      const second = loadConfig({ DATA_DIR: dataDir });
      expect(second.secret).toBe(first.secret);
    });

    it('differs between two data directories', () => {
      const one = loadConfig({ DATA_DIR: tempDir() });
      const two = loadConfig({ DATA_DIR: tempDir() });
      expect(one.secret).not.toBe(two.secret);
    });

    it('uses a given SECRET and writes no file', () => {
      const dataDir = tempDir();
      expect(loadConfig({ DATA_DIR: dataDir, SECRET: GOOD_SECRET }).secret).toBe(GOOD_SECRET);
      expect(existsSync(join(dataDir, 'secret.key'))).toBe(false);
    });
  });
});
