// The only reader of process.env (config-database.ts and config-env.ts read the env it hands them). Every
// variable is typed, validated and documented in the README.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { databaseConfig } from './config-database.js';
import type { DatabaseConfig } from './config-database.js';
import { ConfigError, flag, httpUrl, integer, oneOf, text } from './config-env.js';
import type { Env } from './config-env.js';
import { parseClamdAddress } from './core/files/clamd.js';
import type { ClamdAddress } from './core/files/clamd.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export { ConfigError };

export interface S3Config {
  endpoint: string | undefined;
  region: string;
  bucket: string;
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  forcePathStyle: boolean;
}

/** Requests per minute (DESIGN §6), each overridable by its RATE_LIMIT_* variable. */
export interface RateLimitNumbers {
  /** Per authenticated account. */
  authenticated: number;
  /** Per anonymous client IP (IPv6: per /64). */
  anonymous: number;
  /** POST /auth/login and /auth/register, per client IP. */
  authAttempts: number;
  /** Uploads, per caller. */
  uploads: number;
  /** Refused credentials, per client IP. */
  failedAuthentications: number;
}

export interface Config extends DatabaseConfig {
  port: number;
  host: string;
  dataDir: string;
  storage: 'local' | 's3';
  s3: S3Config;
  publicUrl: string;
  cdnUrl: string;
  redisUrl: string | undefined;
  secret: string;
  rateLimit: boolean;
  /** false, true (trust every hop: insecure, warned at start), a hop count, or proxy addresses/CIDRs. */
  trustProxy: boolean | number | string[];
  corsOrigins: string[];
  maxFileBytes: number;
  logLevel: LogLevel;
  migrate: boolean;
  timeouts: ServerTimeouts;
  /** After SIGTERM, in-flight requests get this long to finish before the process gives up on them. */
  shutdownTimeoutMs: number;
  /** Storage sweep: unreferenced objects and unfinished uploads younger than this are never removed. */
  storageSweepGraceMs: number;
  /** GET /metrics (Prometheus): on with METRICS=on or when METRICS_TOKEN is set; off by default. */
  metrics: boolean;
  /** When set, /metrics requires `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /** br/gzip for JSON over 1 KB; off when a proxy or CDN in front compresses already. */
  compression: boolean;
  /** Prefix of every rate-limit key in Redis, so several deployments can share one Redis. */
  rateLimitRedisPrefix: string;
  /** A Redis rate-limit command slower than this counts as failed (a stalled Redis): per-process counters. */
  rateLimitRedisTimeoutMs: number;
  rateLimits: RateLimitNumbers;
  events: EventsConfig;
  /** Server votes' Votifier delivery (spec/extensions.md §3). */
  votes: VotesConfig;
  /** The transparent server rank's weights (spec/extensions.md §3). */
  rank: RankConfig;
  /** Malware scanning with clamd (spec/extensions.md §2.4); undefined when CLAMAV_URL is not set. */
  clamav: ClamavConfig | undefined;
}

export interface ClamavConfig {
  /** CLAMAV_URL: `tcp://host:port` or the absolute path of clamd's unix socket. */
  address: ClamdAddress;
  /** CLAMAV_TIMEOUT_MS: connecting, and any silence of clamd during a scan. */
  timeoutMs: number;
}

function clamavConfig(env: Env): ClamavConfig | undefined {
  const raw = text(env, 'CLAMAV_URL');
  if (raw === undefined) return undefined;
  try {
    return {
      address: parseClamdAddress(raw),
      timeoutMs: integer(env, 'CLAMAV_TIMEOUT_MS', 60_000, 100, 600_000),
    };
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError('CLAMAV_URL', (error as Error).message);
  }
}

export interface VotesConfig {
  /** VOTIFIER_SERVICE_NAME: the serviceName game servers see on each vote; default PUBLIC_URL's host. */
  votifierServiceName: string;
  /** VOTIFIER_TIMEOUT_MS: DNS, connect and the whole exchange with one Votifier listener. */
  votifierTimeoutMs: number;
}

/** Events, webhooks and outbound connections (spec/extensions.md §1 and its shared rules). */
export interface EventsConfig {
  /** Events (and their deliveries) older than this are deleted by the daily retention job. */
  retentionDays: number;
  /** OUTBOUND_ALLOW_PRIVATE: lets webhooks (and Votifier) reach loopback, private and link-local addresses. */
  outboundAllowPrivate: boolean;
  /** Whether this process sends webhook deliveries (any number of processes may). */
  webhookWorker: boolean;
  /** Deliveries in flight at once per process. */
  webhookConcurrency: number;
  /** Connect + response time allowed to a receiver. */
  webhookTimeoutMs: number;
  /** How often an idle worker looks for new events and due retries. */
  webhookPollMs: number;
  /** Largest event body sent; an event whose JSON is larger is sent with its data cut to {truncated: true}. */
  webhookMaxBodyBytes: number;
  /**
   * GET /events only lists events older than this on PostgreSQL, so a cursor never passes an event whose
   * transaction committed a moment after a later one's. SQLite serializes writers: 0 there.
   */
  feedSettleMs: number | undefined;
}

/**
 * SECRET signs download URLs. Never a built-in default. On one machine (SQLite, local storage) it is generated
 * once into DATA_DIR and reused. On PostgreSQL or S3 it is required: every process must sign with the same value,
 * and that mode keeps nothing on local disk (which may well be read-only).
 */
function loadSecret(env: Env, dataDir: string, scaledOut: boolean): string {
  const given = text(env, 'SECRET');
  if (given !== undefined) {
    if (given.length < 32) throw new ConfigError('SECRET', 'must be at least 32 characters');
    return given;
  }
  if (scaledOut) {
    throw new ConfigError(
      'SECRET',
      'is required with PostgreSQL or STORAGE=s3 (at least 32 characters, the same on every process)',
    );
  }
  const path = join(dataDir, 'secret.key');
  try {
    if (existsSync(path)) return readFileSync(path, 'utf8').trim();
    mkdirSync(dataDir, { recursive: true });
    const generated = randomBytes(32).toString('base64url');
    writeFileSync(path, generated, { mode: 0o600, flag: 'wx' });
    return generated;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ConfigError('DATA_DIR', `is not usable for ${path} (${code}): make it writable or set SECRET`);
  }
}

/**
 * Socket timeouts of the HTTP server (all in milliseconds). Without them an idle or trickling client holds a
 * connection, and its memory, forever.
 */
export interface ServerTimeouts {
  /** An idle keep-alive connection is closed after this long; above a balancer's idle timeout (often 60 s). */
  keepAliveMs: number;
  /** The request line and headers must arrive within this. */
  headersMs: number;
  /** The whole request, body included, must arrive within this: long enough for a large upload. */
  requestMs: number;
  /** A connection on which no byte moves for this long is closed, e.g. one that never sends a request. */
  idleMs: number;
  /**
   * A request body must average at least this many bytes per second once it has been arriving for
   * bodyRateGraceMs (0: no floor). Bytes trickled slowly keep idleMs from firing, so only this cuts them early.
   */
  minBodyBytesPerSecond: number;
  bodyRateGraceMs: number;
}

function serverTimeouts(env: Env): ServerTimeouts {
  const timeouts = {
    keepAliveMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 72_000, 100, 3_600_000),
    headersMs: integer(env, 'HEADERS_TIMEOUT_MS', 30_000, 100, 3_600_000),
    requestMs: integer(env, 'REQUEST_TIMEOUT_MS', 600_000, 100, 86_400_000),
    idleMs: integer(env, 'IDLE_TIMEOUT_MS', 120_000, 100, 3_600_000),
    minBodyBytesPerSecond: integer(env, 'MIN_BODY_BYTES_PER_SECOND', 1024, 0, 1_000_000_000),
    bodyRateGraceMs: integer(env, 'BODY_RATE_GRACE_MS', 10_000, 100, 3_600_000),
  };
  // Node refuses a headers timeout above the request timeout; say so in our words rather than crash on start.
  if (timeouts.headersMs > timeouts.requestMs) {
    throw new ConfigError('HEADERS_TIMEOUT_MS', `must not exceed REQUEST_TIMEOUT_MS (${timeouts.requestMs})`);
  }
  return timeouts;
}

/** A token short enough to guess is refused rather than silently protecting nothing. */
function metricsConfig(env: Env): Pick<Config, 'metrics' | 'metricsToken'> {
  const metricsToken = text(env, 'METRICS_TOKEN');
  if (metricsToken !== undefined && metricsToken.length < 16) {
    throw new ConfigError('METRICS_TOKEN', 'must be at least 16 characters');
  }
  return { metrics: flag(env, 'METRICS', metricsToken !== undefined), metricsToken };
}

function rateLimitNumbers(env: Env): RateLimitNumbers {
  const perMinute = (name: string, fallback: number) => integer(env, name, fallback, 1, 1_000_000);
  return {
    authenticated: perMinute('RATE_LIMIT_AUTHENTICATED', 600),
    anonymous: perMinute('RATE_LIMIT_ANONYMOUS', 300),
    authAttempts: perMinute('RATE_LIMIT_AUTH_ATTEMPTS', 10),
    uploads: perMinute('RATE_LIMIT_UPLOADS', 60),
    failedAuthentications: perMinute('RATE_LIMIT_FAILED_AUTH', 30),
  };
}

const PROXY_ADDRESS_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An address, a CIDR (`10.0.0.0/8`), an IPv4 address with a netmask, or one of proxy-addr's names. */
function isProxyAddress(entry: string): boolean {
  if (PROXY_ADDRESS_NAMES.has(entry)) return true;
  const [address = '', range, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (range === undefined) return true;
  if (/^\d{1,3}$/.test(range)) return Number(range) <= (family === 4 ? 32 : 128);
  return family === 4 && isIP(range) === 4;
}

/**
 * TRUST_PROXY: which peers may set the client address through X-Forwarded-For. A number is a hop count
 * (Fastify's meaning; it used to be read as `true`, which trusts every hop); `true` is kept but lets any
 * client choose its address, so the app warns about it at start.
 */
function trustProxy(env: Env): Config['trustProxy'] {
  const raw = text(env, 'TRUST_PROXY');
  if (raw === undefined || /^(false|off|no)$/i.test(raw)) return false;
  if (/^(true|on|yes)$/i.test(raw)) return true;
  if (/^\d+$/.test(raw)) {
    const hops = integer(env, 'TRUST_PROXY', 0, 0, 32);
    return hops === 0 ? false : hops;
  }
  const entries = raw.split(',').map((entry) => entry.trim());
  const invalid = entries.find((entry) => !isProxyAddress(entry));
  if (invalid !== undefined) {
    throw new ConfigError(
      'TRUST_PROXY',
      `must be false, a hop count, or proxy addresses/CIDRs separated by commas (got "${invalid}")`,
    );
  }
  return entries;
}

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const host = text(env, 'HOST') ?? '127.0.0.1';
  const dataDir = resolve(text(env, 'DATA_DIR') ?? './data');
  const publicUrl = httpUrl(env, 'PUBLIC_URL', `http://${host.includes(':') ? `[${host}]` : host}:${port}`);
  const storage = oneOf(env, 'STORAGE', ['local', 's3'] as const, 'local');
  const s3: S3Config = {
    endpoint: text(env, 'S3_ENDPOINT'),
    region: text(env, 'S3_REGION') ?? 'us-east-1',
    bucket: text(env, 'S3_BUCKET') ?? '',
    accessKeyId: text(env, 'S3_ACCESS_KEY_ID'),
    secretAccessKey: text(env, 'S3_SECRET_ACCESS_KEY'),
    forcePathStyle: flag(env, 'S3_FORCE_PATH_STYLE', false),
  };
  if (storage === 's3' && s3.bucket === '') throw new ConfigError('S3_BUCKET', 'is required when STORAGE=s3');
  if (s3.endpoint !== undefined) httpUrl(env, 'S3_ENDPOINT', s3.endpoint);
  const database = databaseConfig(env);
  const cors = text(env, 'CORS_ORIGINS');
  const redisUrl = text(env, 'REDIS_URL');
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError('REDIS_URL', 'must be a redis:// or rediss:// URL');
  }
  return {
    port,
    host,
    dataDir,
    ...database,
    storage,
    s3,
    publicUrl,
    cdnUrl: httpUrl(env, 'CDN_URL', `${publicUrl}/cdn`),
    redisUrl,
    secret: loadSecret(
      env,
      dataDir,
      storage === 's3' || /^postgres(ql)?:\/\//.test(database.databaseUrl ?? ''),
    ),
    rateLimit: flag(env, 'RATE_LIMIT', true),
    trustProxy: trustProxy(env),
    corsOrigins:
      cors === undefined
        ? []
        : cors
            .split(',')
            .map((origin) => origin.trim())
            .filter(Boolean),
    maxFileBytes: integer(env, 'MAX_FILE_MB', 100, 1, 10_240) * 1024 * 1024,
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
    migrate: flag(env, 'MIGRATE', true),
    timeouts: serverTimeouts(env),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 25_000, 100, 3_600_000),
    storageSweepGraceMs: integer(env, 'STORAGE_SWEEP_GRACE_HOURS', 24, 1, 24 * 365) * 60 * 60 * 1000,
    ...metricsConfig(env),
    compression: flag(env, 'COMPRESSION', true),
    rateLimitRedisPrefix: text(env, 'RATE_LIMIT_REDIS_PREFIX') ?? 'marketplace-rl:',
    rateLimitRedisTimeoutMs: integer(env, 'RATE_LIMIT_REDIS_TIMEOUT_MS', 250, 10, 10_000),
    rateLimits: rateLimitNumbers(env),
    events: eventsConfig(env),
    votes: {
      votifierServiceName: text(env, 'VOTIFIER_SERVICE_NAME') ?? new URL(publicUrl).host,
      votifierTimeoutMs: integer(env, 'VOTIFIER_TIMEOUT_MS', 5_000, 100, 60_000),
    },
    rank: rankConfig(env),
    clamav: clamavConfig(env),
  };
}

function eventsConfig(env: Env): EventsConfig {
  const settle = text(env, 'EVENT_FEED_SETTLE_MS');
  return {
    retentionDays: integer(env, 'EVENT_RETENTION_DAYS', 90, 1, 3650),
    outboundAllowPrivate: flag(env, 'OUTBOUND_ALLOW_PRIVATE', false),
    webhookWorker: flag(env, 'WEBHOOK_WORKER', true),
    webhookConcurrency: integer(env, 'WEBHOOK_CONCURRENCY', 8, 1, 256),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    webhookPollMs: integer(env, 'WEBHOOK_POLL_MS', 250, 10, 60_000),
    webhookMaxBodyBytes: integer(env, 'WEBHOOK_MAX_BODY_KB', 256, 1, 10_240) * 1024,
    feedSettleMs: settle === undefined ? undefined : integer(env, 'EVENT_FEED_SETTLE_MS', 0, 0, 60_000),
  };
}

/** score = votes·votes30d + players·averagePlayers7d + uptime·uptime7d + age·min(daysListed, 30). */
export interface RankConfig {
  weights: { votes: number; players: number; uptime: number; age: number };
}

/** A non-negative weight: a decimal number, or a fraction such as the default age weight 1/3. */
function weight(env: Env, name: string, fallback: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const match = /^(\d+(?:\.\d+)?)(?:\/(\d+(?:\.\d+)?))?$/.exec(raw);
  const value = match ? Number(match[1]) / (match[2] === undefined ? 1 : Number(match[2])) : NaN;
  // The cap keeps every score finite and exactly comparable; no sensible weight comes near it.
  if (!Number.isFinite(value) || value > 1_000_000) {
    throw new ConfigError(
      name,
      `must be a non-negative number (or a fraction like 1/3) up to 1000000, got "${raw}"`,
    );
  }
  return value;
}

/** spec/extensions.md §3: 0.5·votes + 2·players + 30·uptime + min(days listed, 30)/3. */
export const DEFAULT_RANK_WEIGHTS: RankConfig['weights'] = { votes: 0.5, players: 2, uptime: 30, age: 1 / 3 };

function rankConfig(env: Env): RankConfig {
  const fallback = DEFAULT_RANK_WEIGHTS;
  return {
    weights: {
      votes: weight(env, 'RANK_WEIGHT_VOTES', fallback.votes),
      players: weight(env, 'RANK_WEIGHT_PLAYERS', fallback.players),
      uptime: weight(env, 'RANK_WEIGHT_UPTIME', fallback.uptime),
      age: weight(env, 'RANK_WEIGHT_AGE', fallback.age),
    },
  };
}
