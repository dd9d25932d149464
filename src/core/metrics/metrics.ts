// The service's Prometheus metrics (issue 11, "observability"). One Registry per app, never prom-client's global
// one: tests build several apps in one process, and each must count only its own traffic.
//
// Labels are chosen for bounded cardinality: a route is its pattern (`/resources/:id`), never the raw URL; a
// query is its statement kind, never its SQL; a job is its registered name.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds. Hot reads answer well under a millisecond; uploads and ZIPs take seconds. */
const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const QUERY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300];

/** What the pool gauges read (pg.Pool has these three counts). */
export interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

export type Metrics = ReturnType<typeof createMetrics>;

export function createMetrics() {
  const registry = new Registry();
  // Event-loop lag, heap and RSS, CPU, handles, GC: the process health an operator alerts on.
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers,
  });
  const requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request received to response sent, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: REQUEST_BUCKETS,
    registers,
  });
  const rateLimited = new Counter({
    name: 'http_rate_limited_total',
    help: 'Requests refused by a rate limit (429), by route pattern',
    labelNames: ['route'] as const,
    registers,
  });
  const queryDuration = new Histogram({
    name: 'db_query_duration_seconds',
    help: 'Database statement time, by statement kind (select, insert, update, delete, other)',
    labelNames: ['operation'] as const,
    buckets: QUERY_BUCKETS,
    registers,
  });
  const jobRuns = new Counter({
    name: 'job_runs_total',
    help: 'Periodic job runs, by job and outcome (ok, failed)',
    labelNames: ['job', 'outcome'] as const,
    registers,
  });
  const jobDuration = new Histogram({
    name: 'job_run_duration_seconds',
    help: 'Periodic job run time, by job',
    labelNames: ['job'] as const,
    buckets: JOB_BUCKETS,
    registers,
  });
  const storageErrors = new Counter({
    name: 'storage_errors_total',
    help: 'Failed object-storage operations, by operation (put, get, head, delete, signedUrl, ping)',
    labelNames: ['operation'] as const,
    registers,
  });

  const deliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts, by result (succeeded, retrying, failed, hidden)',
    labelNames: ['result'] as const,
    registers,
  });
  const deliveryDuration = new Histogram({
    name: 'webhook_delivery_duration_seconds',
    help: 'Time of one delivery attempt, including the receiver',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });

  return {
    registry,
    requests,
    requestDuration,
    rateLimited,
    storageErrors,

    observeQuery(operation: string, seconds: number): void {
      queryDuration.observe({ operation }, seconds);
    },

    observeJobRun(run: { job: string; ok: boolean; durationMs: number }): void {
      jobRuns.inc({ job: run.job, outcome: run.ok ? 'ok' : 'failed' });
      jobDuration.observe({ job: run.job }, run.durationMs / 1000);
    },

    observeDelivery(result: string, durationMs: number): void {
      deliveries.inc({ result });
      deliveryDuration.observe(durationMs / 1000);
    },

    /** The webhook backlog, counted at scrape time (two indexed counts). */
    watchWebhookQueue(read: () => Promise<{ pendingDeliveries: number; undispatchedEvents: number }>): void {
      let last: Promise<{ pendingDeliveries: number; undispatchedEvents: number }> | undefined;
      // Both gauges of one scrape share one read.
      const snapshot = () => (last ??= read().finally(() => (last = undefined)));
      new Gauge({
        name: 'webhook_deliveries_pending',
        help: 'Webhook deliveries waiting to be sent or retried',
        registers,
        async collect() {
          this.set((await snapshot()).pendingDeliveries);
        },
      });
      new Gauge({
        name: 'events_undispatched',
        help: 'Events not yet turned into webhook deliveries (grows when no worker runs)',
        registers,
        async collect() {
          this.set((await snapshot()).undispatchedEvents);
        },
      });
    },

    /** Pool gauges, read at scrape time: nothing is done per query. PostgreSQL only (SQLite has no pool). */
    watchPool(pool: PoolCounts): void {
      const gauge = (name: string, help: string, read: () => number) =>
        new Gauge({
          name,
          help,
          registers,
          collect() {
            this.set(read());
          },
        });
      gauge('db_pool_connections', 'Open connections in the PostgreSQL pools', () => pool.totalCount);
      gauge('db_pool_idle_connections', 'Idle connections in the PostgreSQL pools', () => pool.idleCount);
      gauge(
        'db_pool_waiting_clients',
        'Queries waiting for a free PostgreSQL pool connection',
        () => pool.waitingCount,
      );
    },
  };
}
