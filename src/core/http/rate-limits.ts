// Rate limits (DESIGN §6): per minute, per authenticated caller or anonymous IP, with stricter limits for
// login/register (per IP), uploads (per caller) and failed authentications (per IP); the numbers come from
// config (RATE_LIMIT_*). Counters live in Redis when REDIS_URL is set and fall back to process memory while
// it is unreachable (rate-limit-store.ts).
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config, RateLimitNumbers } from '../../config.js';
import { AppError } from './errors.js';
import { FallbackStore, RedisLink } from './rate-limit-store.js';
import type { Readiness } from '../readiness.js';

/** Every limit counts per minute. */
const WINDOW_MS = 60_000;

/**
 * The client address a limit counts against. IPv6 clients are counted per /64 (the plugin's own rule): one
 * subscriber usually holds a whole /64, and counting single addresses would let it rotate through them.
 */
const clientKey = (request: FastifyRequest): string => normalizeIP(request.ip);

const callerKey = (request: FastifyRequest): string =>
  request.actor !== null ? `user:${request.actor.userId}` : `ip:${clientKey(request)}`;

function rateLimitedError(_request: FastifyRequest, context: { after: string; max: number }): AppError {
  return new AppError(
    429,
    'RATE_LIMITED',
    `Rate limit exceeded: at most ${context.max} requests per minute; retry in ${context.after}`,
  );
}

/** Answers a request whose credential was refused: counted per client IP, 429 once the budget is spent. */
export interface FailedAuthentications {
  refuse(request: FastifyRequest, reply: FastifyReply, refusal: AppError): Promise<AppError>;
}

/** Built before authentication is registered (it needs the failed-authentication budget), then registered. */
export interface RateLimiting {
  failedAuthentications: FailedAuthentications;
  link: RedisLink | undefined;
  nameSpace: string;
  numbers: RateLimitNumbers;
}

export function createRateLimiting(
  config: Pick<Config, 'redisUrl' | 'rateLimitRedisPrefix' | 'rateLimitRedisTimeoutMs' | 'rateLimits'>,
  log: FastifyBaseLogger,
): RateLimiting {
  const { redisUrl, rateLimitRedisPrefix: nameSpace, rateLimits: numbers } = config;
  const link =
    redisUrl === undefined ? undefined : new RedisLink(redisUrl, config.rateLimitRedisTimeoutMs, log);
  const store = FallbackStore.create(link, `${nameSpace}failed-auth:`);
  const max = numbers.failedAuthentications;
  return {
    link,
    nameSpace,
    numbers,
    failedAuthentications: {
      // Only refusals are counted, and a valid credential is still looked up and accepted from a counted
      // address: clients behind one NAT share it, and one broken client must not lock the others out.
      async refuse(request, reply, refusal) {
        const { current, ttl } = await store.increment(clientKey(request), WINDOW_MS, max);
        const resetSeconds = Math.max(1, Math.ceil(ttl / 1000));
        reply.header('x-ratelimit-limit', max);
        reply.header('x-ratelimit-remaining', Math.max(0, max - current));
        reply.header('x-ratelimit-reset', resetSeconds);
        if (current <= max) return refusal;
        reply.header('retry-after', resetSeconds);
        return new AppError(
          429,
          'RATE_LIMITED',
          `Too many failed authentications from this address: at most ${max} per minute; retry in ${resetSeconds} s`,
        );
      },
    },
  };
}

/** The plugin builds its store with `new store(options)`; this hands it the one built here instead. */
function prebuilt(store: FallbackStore): FastifyRateLimitStoreCtor {
  return function PrebuiltStore() {
    return store;
  } as unknown as FastifyRateLimitStoreCtor;
}

export async function registerRateLimits(
  app: FastifyInstance,
  limiting: RateLimiting,
  readiness: Readiness,
): Promise<void> {
  const { link, numbers } = limiting;
  // Route configs below read the numbers of the app serving the request (tests build several apps).
  app.decorate('rateLimitNumbers', numbers);
  if (link !== undefined) {
    app.addHook('onReady', async () => link.settled());
    app.addHook('onClose', async () => link.close());
    // Not critical: without Redis the limits still hold, per process, so the process stays in rotation.
    readiness.register('redis', async () => ((await link.ping()) ? 'ok' : 'degraded'), { critical: false });
  }
  await app.register(rateLimit, {
    global: true,
    max: (request) => (request.actor !== null ? numbers.authenticated : numbers.anonymous),
    timeWindow: WINDOW_MS,
    keyGenerator: callerKey,
    errorResponseBuilder: rateLimitedError,
    // Runs after authentication (registered earlier), so callers are keyed by account, not IP.
    hook: 'onRequest',
    store: prebuilt(FallbackStore.create(link, limiting.nameSpace)),
  });
  // Unknown routes are not routes, so the plugin never attaches to them; they spend the caller's general
  // allowance like any other request (a 404 flood is still a flood).
  const notFoundLimit = app.rateLimit();
  app.addHook('onRequest', async function limitUnknownRoutes(request, reply) {
    if (request.is404) await notFoundLimit.call(this, request, reply);
  });
}

/** Route config: login and register, per IP (default 10 per minute). */
export const authAttemptLimit = {
  rateLimit: {
    max: (request: FastifyRequest) => request.server.rateLimitNumbers.authAttempts,
    timeWindow: WINDOW_MS,
    keyGenerator: (request: FastifyRequest) => `auth:${clientKey(request)}`,
  },
};

/** Route config: uploads, per caller (default 60 per minute). */
export const uploadLimit = {
  rateLimit: {
    max: (request: FastifyRequest) => request.server.rateLimitNumbers.uploads,
    timeWindow: WINDOW_MS,
    keyGenerator: (request: FastifyRequest) => `upload:${callerKey(request)}`,
  },
};

declare module 'fastify' {
  interface FastifyInstance {
    rateLimitNumbers: RateLimitNumbers;
  }
}
