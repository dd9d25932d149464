// GET /metrics (issue 11, observability): off by default, on with METRICS=on or a METRICS_TOKEN (then Bearer
// only); a scrape is valid Prometheus text; counters move with requests, by route pattern and status.
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import { expectError } from '../helpers/http.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\[\\"n])*)"\s*(,|$)/y;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

/**
 * A strict reader of the Prometheus text exposition format 0.0.4: every line is a HELP, a TYPE or a sample of a
 * family declared with TYPE before it, label values escaped, values numbers. Throws on anything else.
 */
function parseExposition(text: string): Sample[] {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  expect(text.endsWith('\n')).toBe(true);
  for (const line of text.split('\n').slice(0, -1)) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (meta !== null) {
      const [, kind, name, rest] = meta as unknown as [string, string, string, string];
      if (!METRIC_NAME.test(name)) throw new Error(`bad metric name: ${line}`);
      if (kind === 'TYPE') {
        if (!TYPES.has(rest)) throw new Error(`bad type: ${line}`);
        if (types.has(name)) throw new Error(`family typed twice: ${name}`);
        types.set(name, rest);
      }
      continue;
    }
    if (line.startsWith('#')) throw new Error(`bad comment: ${line}`);
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: -?\d+)?$/.exec(line);
    if (sample === null) throw new Error(`bad sample line: ${line}`);
    const [, name, labelText, valueText] = sample as unknown as [string, string, string | undefined, string];
    const labels: Record<string, string> = {};
    if (labelText !== undefined && labelText !== '') {
      LABEL.lastIndex = 0;
      while (LABEL.lastIndex < labelText.length) {
        const match = LABEL.exec(labelText);
        if (match === null) throw new Error(`bad labels: ${line}`);
        labels[match[1]!] = match[2]!.replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1');
      }
    }
    // Go's ParseFloat, which Prometheus uses, reads NaN and Inf in any letter case (prom-client writes "Nan").
    const special = /^([+-]?)(inf|nan)$/i.exec(valueText);
    const value = special
      ? special[2]!.toLowerCase() === 'nan'
        ? Number.NaN
        : Number(`${special[1]}Infinity`)
      : Number(valueText);
    if (special === null && (valueText === '' || Number.isNaN(value))) throw new Error(`bad value: ${line}`);
    const family = name.replace(/_(bucket|sum|count|total|created)$/, '');
    if (!types.has(name) && !types.has(family)) throw new Error(`sample before its TYPE: ${line}`);
    samples.push({ name, labels, value });
  }
  return samples;
}

/** The value of one series (0 when absent: a counter that never moved is not exported). */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter(
    (sample) =>
      sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  return found.reduce((sum, sample) => sum + sample.value, 0);
}

async function scrape(t: TestApp, headers: Record<string, string> = {}): Promise<Sample[]> {
  const response = await t.app.inject({ method: 'GET', url: '/metrics', headers });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(response.body);
}

describe('GET /metrics: off by default', () => {
  it('is not served unless METRICS=on or METRICS_TOKEN is set', async () => {
    const t = await buildTestApp();
    try {
      expectError(await t.app.inject({ method: 'GET', url: '/metrics' }), 404, 'NOT_FOUND');
    } finally {
      await t.close();
    }
  });
});

describe('GET /metrics with METRICS=on', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await buildTestApp({ METRICS: 'on' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers valid Prometheus text with process, event-loop and memory metrics', async () => {
    const samples = await scrape(t);
    const names = new Set(samples.map((sample) => sample.name));
    for (const name of [
      'nodejs_eventloop_lag_seconds',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'process_cpu_seconds_total',
    ]) {
      expect(names).toContain(name);
    }
  });

  it('counts requests and their latency by route pattern and status, never by raw URL', async () => {
    const user = await createUser(t.app);
    const before = await scrape(t);
    const route = { method: 'GET', route: '/users/:userId' };
    for (let i = 0; i < 3; i++) {
      expect((await t.app.inject({ method: 'GET', url: `/users/${user.id}` })).statusCode).toBe(200);
    }
    expect(
      (await t.app.inject({ method: 'GET', url: '/users/00000000-0000-7000-8000-000000000000' })).statusCode,
    ).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/no/such/path/42' })).statusCode).toBe(404);
    const after = await scrape(t);

    const moved = (name: string, labels: Record<string, string>) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(moved('http_requests_total', { ...route, status_code: '200' })).toBe(3);
    expect(moved('http_requests_total', { ...route, status_code: '404' })).toBe(1);
    expect(moved('http_request_duration_seconds_count', { ...route, status_code: '200' })).toBe(3);
    expect(moved('http_request_duration_seconds_bucket', { ...route, status_code: '200', le: '+Inf' })).toBe(
      3,
    );
    expect(moved('http_request_duration_seconds_sum', { ...route, status_code: '200' })).toBeGreaterThan(0);
    // Unknown paths share one label; no series carries a raw id or path.
    expect(moved('http_requests_total', { route: 'unmatched', status_code: '404' })).toBe(1);
    const routes = new Set(
      after.filter((s) => s.name === 'http_requests_total').map((s) => s.labels['route']),
    );
    for (const label of routes) expect(label).not.toMatch(/[0-9a-f]{8}-|\/no\/such/);
  });

  it('times database statements by kind', async () => {
    const before = await scrape(t);
    await createUser(t.app);
    const after = await scrape(t);
    for (const operation of ['select', 'insert']) {
      expect(
        valueOf(after, 'db_query_duration_seconds_count', { operation }) -
          valueOf(before, 'db_query_duration_seconds_count', { operation }),
        operation,
      ).toBeGreaterThan(0);
    }
  });

  it('reports pool gauges on PostgreSQL only', async () => {
    const samples = await scrape(t);
    const gauge = samples.find((sample) => sample.name === 'db_pool_connections');
    const { database } = t.app.context;
    if (database.dialect === 'postgres') {
      expect(gauge?.value).toBeGreaterThanOrEqual(1);
      // Both pools, writes' and plain reads' and the search statements': the connections this process holds.
      await t.app.inject({ method: 'GET', url: '/resources?search=anything' });
      const open = database.pool!.totalCount + database.indexPlanPool!.totalCount;
      expect(database.indexPlanPool!.totalCount).toBeGreaterThanOrEqual(1);
      expect((await scrape(t)).find((sample) => sample.name === 'db_pool_connections')?.value).toBe(open);
      expect(samples.some((sample) => sample.name === 'db_pool_idle_connections')).toBe(true);
      expect(samples.some((sample) => sample.name === 'db_pool_waiting_clients')).toBe(true);
    } else {
      expect(gauge).toBeUndefined();
    }
  });

  it('counts job runs and failures by job', async () => {
    const { scheduler } = t.app.context;
    scheduler.register({ name: 'metrics-test-ok', intervalMs: 3_600_000, run: async () => {} });
    scheduler.register({
      name: 'metrics-test-failing',
      intervalMs: 3_600_000,
      run: async () => {
        throw new Error('job broke');
      },
    });
    await scheduler.runNow('metrics-test-ok');
    await expect(scheduler.runNow('metrics-test-failing')).rejects.toThrow('job broke');
    const samples = await scrape(t);
    expect(valueOf(samples, 'job_runs_total', { job: 'metrics-test-ok', outcome: 'ok' })).toBe(1);
    expect(valueOf(samples, 'job_runs_total', { job: 'metrics-test-failing', outcome: 'failed' })).toBe(1);
    expect(valueOf(samples, 'job_run_duration_seconds_count', { job: 'metrics-test-failing' })).toBe(1);
  });
});

describe('GET /metrics: webhooks', () => {
  it('counts delivery attempts by result and shows the backlog', async () => {
    const t = await buildTestApp({
      METRICS: 'on',
      OUTBOUND_ALLOW_PRIVATE: 'true',
      WEBHOOK_TIMEOUT_MS: '300',
      // Fan events out at once on PostgreSQL too (the settle window is tested in test/webhooks).
      EVENT_FEED_SETTLE_MS: '0',
    });
    const receiver = await startReceiver();
    try {
      const user = await createUser(t.app);
      const created = await t.app.inject({
        method: 'POST',
        url: '/webhooks',
        headers: user.headers,
        payload: { url: receiver.url, events: ['*'], scope: { kind: 'USER' } },
      });
      expect(created.statusCode, created.body).toBe(201);
      const resource = await t.app.inject({
        method: 'POST',
        url: '/resources',
        headers: user.headers,
        payload: { name: 'Metered', slug: `metered-${Date.now()}`, shortDescription: 'x', type: 'MOD' },
      });
      expect(resource.statusCode, resource.body).toBe(201);
      let samples = await scrape(t);
      expect(valueOf(samples, 'events_undispatched', {})).toBe(1);
      receiver.respond = () => ({ status: 500 });
      await t.app.webhookWorker.drain();
      samples = await scrape(t);
      expect(valueOf(samples, 'webhook_deliveries_total', { result: 'retrying' })).toBe(1);
      expect(valueOf(samples, 'webhook_deliveries_pending', {})).toBe(1);
      expect(valueOf(samples, 'events_undispatched', {})).toBe(0);
      receiver.respond = () => ({ status: 204 });
      t.clock.advance(60_000);
      await t.app.webhookWorker.drain();
      samples = await scrape(t);
      expect(valueOf(samples, 'webhook_deliveries_total', { result: 'succeeded' })).toBe(1);
      expect(valueOf(samples, 'webhook_delivery_duration_seconds_count', {})).toBe(2);
      expect(valueOf(samples, 'webhook_deliveries_pending', {})).toBe(0);
    } finally {
      await receiver.close();
      await t.close();
    }
  });
});

describe('GET /metrics: storage errors', () => {
  it('counts failed storage operations by operation', async () => {
    // Local disk whatever the suite's driver: the storage root is replaced by a plain file, a real failure.
    const t = await buildTestApp({ METRICS: 'on', STORAGE: 'local' });
    try {
      const root = join(t.config.dataDir, 'storage');
      renameSync(root, `${root}.moved`);
      writeFileSync(root, 'not a directory');
      const ready = await t.app.inject({ method: 'GET', url: '/ready' });
      expect(ready.statusCode).toBe(503);
      const samples = await scrape(t);
      expect(valueOf(samples, 'storage_errors_total', { operation: 'ping' })).toBeGreaterThanOrEqual(1);
      expect(valueOf(samples, 'storage_errors_total', { operation: 'put' })).toBe(0);
    } finally {
      await t.close();
    }
  });
});

describe('GET /metrics: rate-limit rejections', () => {
  it('counts 429 answers by route', async () => {
    const t = await buildTestApp({ METRICS: 'on', RATE_LIMIT: 'on' });
    try {
      const login = () =>
        t.app.inject({
          method: 'POST',
          url: '/auth/login',
          payload: { login: 'nobody', password: 'wrong password' },
        });
      let refused = 0;
      for (let i = 0; i < 12; i++) if ((await login()).statusCode === 429) refused += 1;
      expect(refused).toBeGreaterThanOrEqual(1);
      const samples = await scrape(t);
      expect(valueOf(samples, 'http_rate_limited_total', { route: '/auth/login' })).toBe(refused);
      expect(valueOf(samples, 'http_requests_total', { route: '/auth/login', status_code: '429' })).toBe(
        refused,
      );
    } finally {
      await t.close();
    }
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  const token = 'scrape-token-0123456789abcdef';
  let t: TestApp;

  beforeAll(async () => {
    t = await buildTestApp({ METRICS_TOKEN: token });
  });
  afterAll(async () => {
    await t.close();
  });

  it('refuses a scrape without the token with 401', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/metrics' });
    expectError(response, 401, 'UNAUTHORIZED');
    expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(response.body).not.toContain('http_requests_total');
  });

  it.each([
    ['a wrong token', `Bearer ${token}x`],
    ['a prefix of the token', `Bearer ${token.slice(0, 10)}`],
    ['the token without the scheme', token],
    ['an API-key style header only', ''],
  ])('refuses %s with 401', async (_what, authorization) => {
    const headers: Record<string, string> = authorization === '' ? { 'x-api-key': token } : { authorization };
    expectError(await t.app.inject({ method: 'GET', url: '/metrics', headers }), 401, 'UNAUTHORIZED');
  });

  it('serves the scrape with Authorization: Bearer <token>', async () => {
    const samples = await scrape(t, { authorization: `Bearer ${token}` });
    expect(samples.length).toBeGreaterThan(10);
  });
});
