// Graceful shutdown. On SIGTERM a balancer must learn at once that this process is going away (/ready → 503),
// requests already started must finish, idle keep-alive connections must not hold the process open, and a clean
// drain exits 0 (an orchestrator reads any other code as a crash).
//
// Sequence:
//   1. /ready answers 503 shutting_down; every response from now on carries `Connection: close`, and idle
//      keep-alive connections are closed, so clients reconnect elsewhere.
//   2. The listener stays open while requests are in flight, so /ready can still be asked (and says 503) and a
//      straggler the balancer sent before it noticed is still served.
//   3. When no request is in flight: stop listening, run the app's close hooks (jobs, database), exit 0.
//   4. If that has not happened within SHUTDOWN_TIMEOUT_MS: log what was cut, exit 1.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { App } from '../app.js';

export interface GracefulShutdown {
  /** Starts the sequence; later calls return the same promise. Resolves with the exit code. */
  shutdown(signal: string): Promise<number>;
}

export function installGracefulShutdown(app: App, timeoutMs: number): GracefulShutdown {
  const { readiness } = app.context;
  const server = app.server as Server;
  // Counted on the raw server, not with Fastify hooks: hooks added now would not reach the routes already
  // registered, and every request counts, unknown routes and early errors included.
  const open = new Set<ServerResponse>();
  let drained: (() => void) | undefined;
  server.on('request', (_request: IncomingMessage, response: ServerResponse) => {
    open.add(response);
    if (readiness.shuttingDown) response.setHeader('connection', 'close');
    response.once('close', () => {
      open.delete(response);
      if (open.size === 0) drained?.();
    });
  });

  let running: Promise<number> | undefined;

  async function sequence(signal: string): Promise<number> {
    const started = Date.now();
    app.log.info({ signal, inFlight: open.size, timeoutMs }, 'shutting down: draining requests');
    readiness.setShuttingDown();
    // Responses still to be written end their connection instead of keeping it alive.
    for (const response of open) if (!response.headersSent) response.setHeader('connection', 'close');
    server.closeIdleConnections();
    if (open.size > 0) await new Promise<void>((resolve) => (drained = resolve));
    await app.close();
    app.log.info({ durationMs: Date.now() - started }, 'shut down cleanly');
    return 0;
  }

  return {
    shutdown(signal) {
      running ??= new Promise<number>((resolve) => {
        const timer = setTimeout(() => {
          app.log.error(
            { inFlight: open.size, timeoutMs },
            'shutdown timed out: cutting the requests still in flight',
          );
          resolve(1);
        }, timeoutMs);
        timer.unref();
        sequence(signal).then(
          (code) => {
            clearTimeout(timer);
            resolve(code);
          },
          (error: unknown) => {
            clearTimeout(timer);
            app.log.error({ err: error }, 'shutdown failed');
            resolve(1);
          },
        );
      });
      return running;
    },
  };
}
