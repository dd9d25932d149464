// Rate limits (DESIGN §6): 600/min per authenticated caller, 300/min per anonymous IP; stricter per-route
// limits for login/register (per IP) and uploads (per caller). In-memory, or shared in Redis when REDIS_URL is set.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { AppError } from './errors.js';

export const RATE_LIMITS = {
  authenticated: 600,
  anonymous: 300,
  authAttempts: 10,
  uploads: 60,
  window: '1 minute',
} as const;

const callerKey = (request: FastifyRequest): string =>
  request.actor !== null ? `user:${request.actor.userId}` : `ip:${request.ip}`;

function rateLimitedError(_request: FastifyRequest, context: { after: string; max: number }): AppError {
  return new AppError(
    429,
    'RATE_LIMITED',
    `Rate limit exceeded: at most ${context.max} requests per minute; retry in ${context.after}`,
  );
}

export async function registerRateLimits(app: FastifyInstance, redisUrl: string | undefined): Promise<void> {
  const redis =
    redisUrl === undefined
      ? undefined
      : new Redis(redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: false });
  if (redis !== undefined) app.addHook('onClose', async () => void (await redis.quit()));
  await app.register(rateLimit, {
    global: true,
    max: (request) => (request.actor !== null ? RATE_LIMITS.authenticated : RATE_LIMITS.anonymous),
    timeWindow: RATE_LIMITS.window,
    keyGenerator: callerKey,
    errorResponseBuilder: rateLimitedError,
    // Runs after authentication (registered earlier), so callers are keyed by account, not IP.
    hook: 'onRequest',
    ...(redis !== undefined ? { redis, nameSpace: 'marketplace-rl:' } : {}),
  });
}

/** Route config: login and register, 10 per minute per IP. */
export const authAttemptLimit = {
  rateLimit: {
    max: RATE_LIMITS.authAttempts,
    timeWindow: RATE_LIMITS.window,
    keyGenerator: (request: FastifyRequest) => `auth:${request.ip}`,
  },
};

/** Route config: uploads, 60 per minute per caller. */
export const uploadLimit = {
  rateLimit: {
    max: RATE_LIMITS.uploads,
    timeWindow: RATE_LIMITS.window,
    keyGenerator: (request: FastifyRequest) => `upload:${callerKey(request)}`,
  },
};
