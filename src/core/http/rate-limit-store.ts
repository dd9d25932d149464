// Rate-limit counters in Redis when it answers, in this process's memory when it does not.
// A lost Redis must never take the API down (issue 11): every counter call either gets Redis's answer at
// once or falls back to the in-process store, so a request never waits on a dead connection. The two stores
// are @fastify/rate-limit's own; this file only chooses between them and reports the link's health.
import { createRequire } from 'node:module';
import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';

type Counted = { current: number; ttl: number };
type CounterCallback = (error: Error | null, result?: Counted) => void;

/** The store contract @fastify/rate-limit calls (its `store` option). */
export interface CounterStore {
  incr(key: string, callback: CounterCallback, timeWindow: number, max: number): void;
  read?(key: string, callback: CounterCallback, timeWindow: number, max: number): void;
  // The plugin passes the merged route options; only the stores read them.
  child(routeOptions: never): CounterStore;
}

// The plugin does not export its stores; they are plain CommonJS constructors at stable paths.
const require = createRequire(import.meta.url);
type LocalStoreCtor = new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  cache?: number,
) => CounterStore;
type RedisStoreCtor = new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  nameSpace: string,
) => CounterStore;
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as LocalStoreCtor;
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as RedisStoreCtor;

/** How many distinct callers the in-process store remembers (the plugin's own default). */
const LOCAL_CACHE_SIZE = 5000;
/** After a failed command on a live connection (a stalled Redis), Redis is tried again at most this often. */
const RETRY_AFTER_FAILURE_MS = 1000;

/**
 * One Redis connection for every rate-limit counter, with its health. Reconnects forever (at most a second
 * apart), so a Redis that comes back is used again without a restart; logs one warning when it is lost and
 * one line when it is back, never one per request or per reconnect attempt.
 */
export class RedisLink {
  readonly client: Redis;
  private degraded = false;
  private retryAt = 0;
  private probing = false;

  /**
   * `commandTimeoutMs`: a command slower than this is a failure. Redis answers in well under a millisecond when
   * healthy, but the timer also runs out while this process's own event loop is stalled (a GC pause, a burst of
   * CPU work: timers are checked before the socket's answer is read), so it must leave room for those, or a
   * healthy Redis is dropped for a second of per-process counting (RATE_LIMIT_REDIS_TIMEOUT_MS).
   */
  constructor(
    url: string,
    commandTimeoutMs: number,
    private readonly log: FastifyBaseLogger,
  ) {
    this.client = new Redis(url, {
      // Commands fail at once while disconnected instead of queueing until the request times out.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: commandTimeoutMs,
      connectTimeout: 1000,
      retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    });
    // Without an 'error' listener ioredis prints "Unhandled error event" on every reconnect attempt.
    this.client.on('error', (error: Error) => this.lost(error));
    this.client.on('close', () => this.lost(new Error('connection closed')));
    this.client.on('ready', () => this.recovered());
  }

  /** Resolves once the first connection attempt has succeeded or failed, so a starting process knows. */
  async settled(): Promise<void> {
    if (this.client.status === 'ready' || this.degraded) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.client.off('ready', done);
        this.client.off('error', done);
        resolve();
      };
      this.client.once('ready', done);
      this.client.once('error', done);
    });
  }

  /** A fresh answer for /ready: a stalled Redis shows here even before a counter call notices. */
  async ping(): Promise<boolean> {
    if (this.client.status !== 'ready') return false;
    try {
      await this.client.ping();
      this.commandSucceeded();
      return true;
    } catch (error) {
      this.commandFailed(error as Error);
      return false;
    }
  }

  /** Whether this counter call should go to Redis. While degraded on a live connection, one probe at a time. */
  tryRedis(): boolean {
    if (this.client.status !== 'ready') return false;
    if (!this.degraded) return true;
    if (this.probing || Date.now() < this.retryAt) return false;
    this.probing = true;
    return true;
  }

  commandFailed(error: Error): void {
    this.probing = false;
    this.retryAt = Date.now() + RETRY_AFTER_FAILURE_MS;
    this.lost(error);
  }

  commandSucceeded(): void {
    this.probing = false;
    if (this.degraded) this.recovered();
  }

  async close(): Promise<void> {
    this.client.removeAllListeners('close');
    this.client.disconnect();
  }

  private lost(error: Error): void {
    if (this.degraded) return;
    this.degraded = true;
    this.log.warn(
      { err: error },
      'Redis unreachable: rate limits fall back to per-process counters until it answers again',
    );
  }

  private recovered(): void {
    if (!this.degraded) return;
    this.degraded = false;
    this.probing = false;
    this.log.info('Redis reachable again: rate limits are shared across processes again');
  }
}

/** Counts in Redis through `link` when it is usable, otherwise (or when the call fails) in process memory. */
export class FallbackStore implements CounterStore {
  constructor(
    private readonly local: CounterStore,
    private readonly shared?: { store: CounterStore; link: RedisLink },
  ) {}

  static create(link: RedisLink | undefined, nameSpace: string): FallbackStore {
    const local = new LocalStore(false, false, LOCAL_CACHE_SIZE);
    if (link === undefined) return new FallbackStore(local);
    return new FallbackStore(local, { store: new RedisStore(false, false, link.client, nameSpace), link });
  }

  incr(key: string, callback: CounterCallback, timeWindow: number, max: number): void {
    this.call('incr', key, callback, timeWindow, max);
  }

  read(key: string, callback: CounterCallback, timeWindow: number, max: number): void {
    this.call('read', key, callback, timeWindow, max);
  }

  child(routeOptions: never): FallbackStore {
    const shared = this.shared;
    return new FallbackStore(
      this.local.child(routeOptions),
      shared === undefined ? undefined : { store: shared.store.child(routeOptions), link: shared.link },
    );
  }

  /** One counter call as a promise (for limits applied outside the plugin's hooks). */
  increment(key: string, timeWindow: number, max: number): Promise<Counted> {
    return new Promise((resolve, reject) =>
      this.incr(
        key,
        (error, result) => (error || result === undefined ? reject(error) : resolve(result)),
        timeWindow,
        max,
      ),
    );
  }

  private call(
    method: 'incr' | 'read',
    key: string,
    callback: CounterCallback,
    timeWindow: number,
    max: number,
  ): void {
    const localCall = () => this.local[method]!(key, callback, timeWindow, max);
    const shared = this.shared;
    if (shared === undefined || !shared.link.tryRedis()) return localCall();
    shared.store[method]!(
      key,
      (error, result) => {
        if (error !== null) {
          shared.link.commandFailed(error);
          return localCall();
        }
        shared.link.commandSucceeded();
        callback(null, result);
      },
      timeWindow,
      max,
    );
  }
}
