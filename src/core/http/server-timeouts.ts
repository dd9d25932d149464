// Fastify/Node server options from the configured timeouts (config.ts ServerTimeouts, README "Timeouts").
import type { ServerTimeouts } from '../../config.js';

/** Node checks headers and request timeouts on a timer; it must tick well inside the shortest of them. */
const MAX_CHECK_INTERVAL_MS = 30_000;

export function serverTimeoutOptions(timeouts: ServerTimeouts) {
  return {
    keepAliveTimeout: timeouts.keepAliveMs,
    requestTimeout: timeouts.requestMs,
    // socket.setTimeout: the only limit on a connection that never sends a byte (headersTimeout starts with
    // the first byte of a request).
    connectionTimeout: timeouts.idleMs,
    http: {
      headersTimeout: timeouts.headersMs,
      connectionsCheckingInterval: Math.min(
        MAX_CHECK_INTERVAL_MS,
        Math.max(50, Math.floor(Math.min(timeouts.headersMs, timeouts.requestMs) / 4)),
      ),
    },
  };
}
