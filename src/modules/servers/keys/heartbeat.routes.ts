// POST /servers/heartbeat (spec/extensions.md §3): authenticated by a server key, never by a user credential.
import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { digest } from '../../../core/auth/credentials.js';
import { AppError } from '../../../core/http/errors.js';
import { missingServerKey } from './heartbeat.service.js';
import { errors } from '../../../core/http/schemas.js';
import { typed } from '../../../core/http/typed.js';
import type { HeartbeatService } from './heartbeat.service.js';
import { HeartbeatAccepted, HeartbeatBody, HeartbeatHeaders } from './keys.schemas.js';
import { SERVER_KEY_PATTERN } from './server-key.js';

/** Per key and minute: two accepted heartbeats plus retries after a 429 or a network error. */
const HEARTBEATS_PER_KEY_PER_MINUTE = 10;

const presentedKey = (request: FastifyRequest): string | undefined => {
  const value = request.headers['x-server-key'];
  return typeof value === 'string' ? value.trim() : undefined;
};

/**
 * The general per-IP limit (RATE_LIMIT_ANONYMOUS) would refuse a hosting provider's or a NAT's thousands of game
 * servers, which share one address and each send two heartbeats a minute. Heartbeats with a well-formed key are
 * therefore counted per key (its digest: no secret in the limiter's store); only malformed ones count against
 * the address, with the anonymous budget.
 */
const heartbeatLimit = {
  rateLimit: {
    max: (request: FastifyRequest, key: string) =>
      key.startsWith('heartbeat-key:')
        ? HEARTBEATS_PER_KEY_PER_MINUTE
        : request.server.rateLimitNumbers.anonymous,
    timeWindow: 60_000,
    keyGenerator: (request: FastifyRequest) => {
      const key = presentedKey(request);
      return key !== undefined && SERVER_KEY_PATTERN.test(key)
        ? `heartbeat-key:${digest(key)}`
        : `heartbeat-ip:${normalizeIP(request.ip)}`;
    },
  },
};

export async function heartbeatRoutes(
  fastify: FastifyInstance,
  { heartbeats }: { heartbeats: HeartbeatService },
): Promise<void> {
  const app = typed(fastify);

  app.post(
    '/servers/heartbeat',
    {
      config: heartbeatLimit,
      // Authentication before validation, as for user routes: no key (or garbage) is a 401 whatever the body.
      preValidation: async (request: FastifyRequest) => {
        const key = presentedKey(request);
        if (key === undefined || !SERVER_KEY_PATTERN.test(key)) throw missingServerKey();
      },
      schema: {
        tags: ['servers'],
        summary: 'A game server reports that it is up, with its players (authenticated by a server key)',
        description:
          'Send the key from POST /servers/:id/keys in the x-server-key header (no user credential). A ' +
          'missing, malformed, unknown or deleted key is a 401. At most one heartbeat per server is accepted ' +
          'per 30 s: an earlier one is a 429 RATE_LIMITED with Retry-After (whole seconds). onlinePlayers above ' +
          'maxPlayers is a 400. Each accepted heartbeat replaces players, capacity, version, motd and latency ' +
          '(an omitted field becomes null). A server is online while its last heartbeat (or status report) is ' +
          'younger than 3 minutes: the first heartbeat after that records server.went_online, and silence ' +
          'records server.went_offline dated exactly 3 minutes after the last report. Works for servers in ' +
          'any status. Send one every 30-60 s.',
        operationId: 'sendServerHeartbeat',
        headers: HeartbeatHeaders,
        body: HeartbeatBody,
        security: [],
        response: { 200: HeartbeatAccepted, ...errors(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const outcome = await heartbeats.heartbeat(presentedKey(request), request.body);
      if (outcome.accepted) return outcome.body;
      reply.header('retry-after', outcome.retryAfterSeconds);
      throw new AppError(
        429,
        'RATE_LIMITED',
        `At most one heartbeat per server every 30 s; retry in ${outcome.retryAfterSeconds} s`,
        { retryAfterSeconds: outcome.retryAfterSeconds },
      );
    },
  );
}
