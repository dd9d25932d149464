// Request counts and latencies by route pattern and status, and rate-limit rejections, from one onResponse hook.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Metrics } from './metrics.js';

/** The one label of every request no route matched (404s for unknown paths), whatever its URL. */
export const UNMATCHED_ROUTE = 'unmatched';

interface Series {
  inc(): void;
  observe(seconds: number): void;
}

export function registerHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  // prom-client hashes a label set on every call; the few hundred (method, route, status) triples a process
  // sees are resolved once and kept, which halves the hook's cost.
  const series = new Map<string, Series>();
  const seriesFor = (method: string, route: string, status: number): Series => {
    const key = `${method} ${status} ${route}`;
    let found = series.get(key);
    if (found === undefined) {
      const labels = { method, route, status_code: String(status) };
      const counter = metrics.requests.labels(labels);
      const histogram = metrics.requestDuration.labels(labels);
      found = { inc: () => counter.inc(), observe: (seconds) => histogram.observe(seconds) };
      series.set(key, found);
    }
    return found;
  };

  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const status = reply.statusCode;
    const one = seriesFor(request.method, route, status);
    one.inc();
    one.observe(reply.elapsedTime / 1000);
    if (status === 429) metrics.rateLimited.inc({ route });
    done();
  });
}
