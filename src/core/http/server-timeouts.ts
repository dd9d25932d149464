// Fastify/Node server options from the configured timeouts (config.ts ServerTimeouts, README "Timeouts").
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
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

/** How often a slow body is re-measured after its grace window: often enough to cut it within a second. */
const BODY_RATE_CHECK_MS = 1000;

function hasBody(request: IncomingMessage): boolean {
  return (
    request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0
  );
}

/**
 * Slow-body guard (decisions.md "Socket timeouts"). A body trickled one byte at a time keeps the socket busy, so
 * IDLE_TIMEOUT_MS never fires, and REQUEST_TIMEOUT_MS must be long enough for a big upload on a slow link. So
 * once a body has been arriving for `bodyRateGraceMs`, its average rate (bytes read from the socket since the
 * headers) must stay at or above `minBodyBytesPerSecond`; below it the request is answered 408 through the
 * same client-error path Node's own request timeout takes (our error shape, then the socket is closed).
 * Installed on the raw server so it covers every route and parser (JSON, multipart, unknown routes) without
 * touching the body stream; bodiless requests cost one header check and no timer.
 */
export function enforceMinimumBodyRate(
  server: Server,
  timeouts: ServerTimeouts,
  log: FastifyBaseLogger,
): void {
  const floor = timeouts.minBodyBytesPerSecond;
  if (floor === 0) return;
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (!hasBody(request)) return;
    const socket = request.socket;
    const started = Date.now();
    const bytesAtStart = socket.bytesRead;
    let timer = setTimeout(check, timeouts.bodyRateGraceMs);
    const stop = () => clearTimeout(timer);
    request.once('end', stop);
    response.once('close', stop);

    function check(): void {
      // Fully received but not yet read by the route: the client is done, nothing to judge.
      if (request.complete || socket.destroyed) return;
      const elapsedMs = Date.now() - started;
      const bytes = socket.bytesRead - bytesAtStart;
      if (bytes * 1000 >= floor * elapsedMs) {
        timer = setTimeout(check, BODY_RATE_CHECK_MS);
        return;
      }
      log.warn(
        {
          method: request.method,
          url: request.url,
          remoteAddress: socket.remoteAddress,
          bytes,
          elapsedMs,
          floor,
        },
        'request body arriving below MIN_BODY_BYTES_PER_SECOND: answered 408 and closed',
      );
      if (response.headersSent) {
        socket.destroy();
        return;
      }
      const tooSlow = Object.assign(new Error('request body too slow'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
      if (!server.emit('clientError', tooSlow, socket)) socket.destroy();
    }
  });
}
